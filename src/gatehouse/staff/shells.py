"""The shells every staff route shares (docs/reference/staff-api.md): once the route has
checked the role and read its query or body, one read transaction, or one write transaction
answered from inside itself (`respond`, web/responses.py), around one service call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from gatehouse.audit.context import WriteContext
from gatehouse.domain.principals import StaffPrincipal
from gatehouse.runtime import Runtime
from gatehouse.web.context import write_context
from gatehouse.web.responses import json_response, respond

Read = Callable[[AsyncSession], Awaitable[object]]
Write = Callable[[AsyncSession, WriteContext], Awaitable[object]]


async def read_answer(runtime: Runtime, read: Read) -> Response:
    """200 with what `read` returns, read in one read transaction."""
    async with runtime.db.read() as session:
        return json_response(200, await read(session))


async def write_answer(
    request: Request, staff: StaffPrincipal, runtime: Runtime, write: Write, status: int = 200
) -> Response:
    """`status` with what `write` returns, written as `staff` in one write transaction."""
    async with runtime.db.write() as session:
        result = await write(session, write_context(request, staff))
        return await respond(request, session, status, result)
