"""`strpos(text, part)`: where `part` first occurs in `text` (1-based, 0 for nowhere), portably."""

from typing import Any

from sqlalchemy import Integer
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement


class strpos(FunctionElement[int]):  # named as SQL functions are
    type = Integer()
    inherit_cache = True
    name = "strpos"


@compiles(strpos)
def _postgresql(element: strpos, compiler: SQLCompiler, **kw: Any) -> str:
    return f"strpos({compiler.process(element.clauses, **kw)})"


@compiles(strpos, "sqlite")
def _sqlite(element: strpos, compiler: SQLCompiler, **kw: Any) -> str:
    return f"instr({compiler.process(element.clauses, **kw)})"
