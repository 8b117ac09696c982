"""The tests' engines share compiled statements by kind of dialect (tests/support/statements.py)."""

from pathlib import Path

import pytest
from sqlalchemy import func, literal, select
from sqlalchemy.engine import Engine

from app.infra.db import make_engine
from tests.support.pgschemas import POSTGRES_URL

STATEMENT = select(func.abs(literal(-2)).label("two"))


def _run(engine: Engine) -> tuple[object, object]:
    """The compiled form of STATEMENT as `engine` ran it, and whether its cache had it."""
    with engine.connect() as connection:
        result = connection.execute(STATEMENT)
        assert result.scalar_one() == 2
        context = result.context
        return context.compiled, context.cache_hit


def _sqlite(path: Path) -> Engine:
    return make_engine(f"sqlite:///{path}")


def test_a_second_engine_of_the_same_kind_finds_the_statement_compiled(tmp_path: Path) -> None:
    first, second = _sqlite(tmp_path / "a.db"), _sqlite(tmp_path / "b.db")
    try:
        compiled, _ = _run(first)
        again, hit = _run(second)
    finally:
        first.dispose()
        second.dispose()
    assert again is compiled
    assert hit == second.dialect.CACHE_HIT


@pytest.mark.parametrize(
    "backend", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
def test_engines_of_different_kinds_compile_for_themselves(backend: str, tmp_path: Path) -> None:
    sqlite, postgres = _sqlite(tmp_path / "a.db"), make_engine(POSTGRES_URL)
    try:
        lite, _ = _run(sqlite)
        pg, _ = _run(postgres)
    finally:
        sqlite.dispose()
        postgres.dispose()
    assert pg is not lite
    assert pg.dialect.name == "postgresql" and lite.dialect.name == "sqlite"  # type: ignore[attr-defined]
