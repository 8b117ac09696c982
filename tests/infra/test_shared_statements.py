"""The tests' engines share compiled statements by kind of dialect (tests/support/statements.py)."""

from pathlib import Path

import pytest
from sqlalchemy import func, literal, select
from sqlalchemy.engine import Engine
from sqlalchemy.sql.compiler import Compiled

from app.infra.db import make_engine
from tests.support.pgschemas import POSTGRES_URL

STATEMENT = select(func.abs(literal(-2)).label("two"))


def _run_on(*engines: Engine) -> list[tuple[Compiled | None, object]]:
    """For each engine in turn, the compiled form of STATEMENT it ran and whether its cache had
    it; the engines are disposed of afterwards."""
    ran: list[tuple[Compiled | None, object]] = []
    try:
        for engine in engines:
            with engine.connect() as connection:
                result = connection.execute(STATEMENT)
                assert result.scalar_one() == 2
                ran.append((result.context.compiled, result.context.cache_hit))
    finally:
        for engine in engines:
            engine.dispose()
    return ran


def _sqlite(path: Path) -> Engine:
    return make_engine(f"sqlite:///{path}")


def test_a_second_engine_of_the_same_kind_finds_the_statement_compiled(tmp_path: Path) -> None:
    second = _sqlite(tmp_path / "b.db")
    (compiled, _), (again, hit) = _run_on(_sqlite(tmp_path / "a.db"), second)
    assert again is compiled
    assert hit == second.dialect.CACHE_HIT


@pytest.mark.parametrize(
    "backend", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
def test_engines_of_different_kinds_compile_for_themselves(backend: str, tmp_path: Path) -> None:
    (lite, _), (pg, _) = _run_on(_sqlite(tmp_path / "a.db"), make_engine(POSTGRES_URL))
    assert lite is not None and pg is not None
    assert (lite.dialect.name, pg.dialect.name) == ("sqlite", "postgresql")
