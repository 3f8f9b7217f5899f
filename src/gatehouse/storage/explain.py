"""The planner's estimate of how many rows a query finds (PostgreSQL), without running it.

`estimated_rows` asks `EXPLAIN (FORMAT JSON)` for a statement's top plan node and answers its
`Plan Rows`: a planning round trip, no execution. The staff queue uses it to choose how to
serve a search (docs/workstation.md "Speed"). On SQLite it answers None.
"""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement, Executable


class _Explain(Executable, ClauseElement):
    """`EXPLAIN (FORMAT JSON) <statement>`, with the statement's own bound parameters."""

    inherit_cache = False

    def __init__(self, statement: Select[Any]) -> None:
        self.statement = statement


@compiles(_Explain, "postgresql")
def _compile_explain(element: _Explain, compiler: SQLCompiler, **kw: Any) -> str:
    return "EXPLAIN (FORMAT JSON) " + compiler.process(element.statement, **kw)


async def estimated_rows(session: AsyncSession, statement: Select[Any]) -> int | None:
    """The planner's row estimate for `statement` (PostgreSQL), else None."""
    if session.get_bind().dialect.name != "postgresql":
        return None
    answer = (await session.execute(_Explain(statement))).scalar()
    plans: Any = orjson.loads(answer) if isinstance(answer, str | bytes) else answer
    return int(plans[0]["Plan"]["Plan Rows"])
