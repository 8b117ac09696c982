"""Settings: the only place that reads the environment."""

import os
from functools import lru_cache
from pathlib import Path
from string import Formatter
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LogFormat = Literal["text", "json"]
LogLevel = Literal["debug", "info", "warning", "error"]


PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_DIR.parent


def resource_dir(name: str, *, source: str | None = None) -> Path:
    """A folder of files the app ships: inside the package when installed from a wheel, else at
    the top of the source checkout (an editable install), where `source` may name it differently.
    """
    packaged = PACKAGE_DIR / name
    return packaged if packaged.is_dir() else PROJECT_ROOT / (source or name)


def _default_database() -> Path:
    """data/qbank.db in a source checkout; for an installed package, the user's data folder."""
    if (PROJECT_ROOT / "pyproject.toml").is_file():
        return PROJECT_ROOT / "data" / "qbank.db"
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "qbank" / "qbank.db"


DEFAULT_SECRET = "change-me"
LOOPBACK = ("127.0.0.1", "::1", "localhost")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="QBANK_", env_file=".env", extra="ignore", populate_by_name=True
    )

    database_url: str = f"sqlite:///{_default_database()}"
    content_dir: Path = resource_dir("bundled", source="content")
    host: str = "127.0.0.1"
    port: int = 8000
    # local: one learner, no login, loopback only. team: accounts, roles, any address.
    mode: Literal["local", "team"] = "local"
    secret_key: str = DEFAULT_SECRET
    # None: Secure cookies exactly when the request came over HTTPS (as forwarded by the proxy).
    cookie_secure: bool | None = None
    session_days: int = 14
    invite_days: int = 7
    open_signup: bool = False
    # Addresses whose X-Forwarded-For/-Proto headers are believed (the reverse proxy), comma
    # separated; empty: none, so no client can pick the address the sign-in limit counts.
    forwarded_allow_ips: str = ""
    # Host names requests may be addressed to, comma separated (`*`: any), besides the host of
    # public_url: a name re-pointed at this machine (DNS rebinding) is refused.
    allowed_hosts: str = "127.0.0.1,localhost,[::1]"
    # In local mode all study state belongs to this learner.
    learner_name: str = "local"
    timezone: str = "UTC"
    # The address people reach this instance at (https://qbank.example.org), for links that
    # leave it, such as those in Anki exports; None: such links are left out.
    public_url: str | None = None
    # Each learner's space for mock-interview recordings, in MB (an administrator may set
    # another for the team); the database holds them, so this bounds what one member can fill.
    recording_quota_mb: int = Field(default=200, ge=0)
    log_level: LogLevel = "info"
    # text: one line a record; json: one JSON object a line, for a log collector.
    log_format: LogFormat = "text"
    # Where prometheus_client's worker processes keep their counters so that /metrics adds them
    # up. Under the library's own variable; `qbank serve --workers N` makes one when unset.
    metrics_dir: Path | None = Field(default=None, validation_alias="PROMETHEUS_MULTIPROC_DIR")
    # Local mode: an "Edit" link on a note's page opens the learner's own editor, e.g.
    # `vscode://file/{abspath}:{line}` or `obsidian://open?vault={vault}&file={path}`. Off if unset.
    editor_url: str | None = None

    @field_validator("database_url")
    @classmethod
    def _normalise_url(cls, value: str) -> str:
        for prefix in ("postgres://", "postgresql://"):
            if value.startswith(prefix):
                return "postgresql+psycopg://" + value[len(prefix) :]
        return value

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("metrics_dir", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("public_url")
    @classmethod
    def _check_public_url(cls, value: str | None) -> str | None:
        return public_url(value) if value else None

    @field_validator("editor_url")
    @classmethod
    def _check_editor_url(cls, value: str | None) -> str | None:
        return editor_template(value) if value else None

    @model_validator(mode="after")
    def _team_needs_secret(self) -> "Settings":
        if self.mode == "team" and (self.secret_key == DEFAULT_SECRET or len(self.secret_key) < 32):
            raise ValueError(
                "team mode needs QBANK_SECRET_KEY set to a random value of at least 32 characters "
                "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(48))'`)"
            )
        return self

    @property
    def team(self) -> bool:
        return self.mode == "team"


EDITOR_FIELDS = frozenset({"abspath", "path", "line", "vault"})


def editor_template(value: str) -> str:
    """`value` as an editor URL template; ValueError for a script URL or an unknown {field}."""
    value = value.strip()
    scheme = value.split(":", 1)[0].lower() if ":" in value else ""
    if not scheme or scheme in ("javascript", "data", "vbscript"):
        raise ValueError(
            f"editor URL must be an address like vscode://file/{{abspath}}:{{line}}, not {value!r}"
        )
    try:
        fields = {name for _, name, _, _ in Formatter().parse(value) if name is not None}
    except ValueError as exc:
        raise ValueError(f"editor URL has unbalanced braces: {value!r}") from exc
    if not fields <= EDITOR_FIELDS:
        unknown = ", ".join(sorted(fields - EDITOR_FIELDS))
        raise ValueError(
            f"editor URL may use {{abspath}}, {{path}}, {{line}} and {{vault}}, not {unknown}"
        )
    return value


def public_url(value: str) -> str:
    """`value` as an absolute http(s) address without a trailing slash; ValueError otherwise."""
    parsed = urlsplit(value.strip())
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError(f"public URL must be an http:// or https:// address, not {value!r}")
    if parsed.query or parsed.fragment:
        raise ValueError(f"public URL must not have a query or fragment: {value!r}")
    return urlunsplit((parsed.scheme, parsed.netloc, parsed.path.rstrip("/"), "", ""))


@lru_cache
def get_settings() -> Settings:
    return Settings()
