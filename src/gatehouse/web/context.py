"""The write context of a request: built once, from the principal the surface authenticated."""

from __future__ import annotations

from fastapi import Request

from gatehouse.audit.context import Acting, WriteContext
from gatehouse.web.auth import runtime_of
from gatehouse.web.errors import request_id_of


def write_context(request: Request, principal: Acting) -> WriteContext:
    """Who acts on this request, under its request id, at one clock read of the runtime.

    Build it inside the write transaction, so `now` is read after the transaction began.
    """
    return WriteContext.of(principal, request_id_of(request) or None, runtime_of(request).now())
