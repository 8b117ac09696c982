"""Settings: the only place that reads the environment."""

from functools import lru_cache
from pathlib import Path

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="QBANK_", env_file=".env", extra="ignore")

    database_url: str = f"sqlite:///{PROJECT_ROOT / 'data' / 'qbank.db'}"
    content_dir: Path = PROJECT_ROOT / "content"
    host: str = "127.0.0.1"
    port: int = 8000
    # The local learner owns all study state until accounts exist.
    learner_name: str = "local"
    timezone: str = "UTC"

    @field_validator("database_url")
    @classmethod
    def _normalise_url(cls, value: str) -> str:
        for prefix in ("postgres://", "postgresql://"):
            if value.startswith(prefix):
                return "postgresql+psycopg://" + value[len(prefix) :]
        return value

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


@lru_cache
def get_settings() -> Settings:
    return Settings()
