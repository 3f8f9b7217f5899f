"""JSON responses, and the one way a write endpoint answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from starlette.responses import Response

from gatehouse.storage.tx_statements import Tx
from gatehouse.web import idempotency


class JSONResponse(Response):
    """orjson-encoded JSON; the default response class of every router."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


def json_response(
    status_code: int, content: Any, headers: Mapping[str, str] | None = None
) -> Response:
    if status_code == 204:
        return Response(status_code=204, headers=dict(headers or {}))
    return JSONResponse(content, status_code=status_code, headers=dict(headers or {}))


async def respond(
    request: Request,
    session: AsyncSession | AsyncConnection | Tx,
    status_code: int,
    content: Any = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """Answer a write from inside its transaction.

    Call it before the `db.write()` (or `db.transaction()`) block ends: the
    Idempotency-Key record (docs/reference/tenant-api.md §4.6) is written in the same transaction
    as the effects.
    """
    response = json_response(status_code, content, headers)
    await idempotency.complete(session, request, response)
    return response
