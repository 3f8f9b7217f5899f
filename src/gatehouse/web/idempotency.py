"""Idempotency-Key on every POST, PATCH and DELETE under /v1 (docs/reference/tenant-api.md §4.6).

Protocol:
1. `begin` (after authentication and scope) commits an `in_flight` marker for
   (tenant, key) on its own, so a concurrent retry sees it and gets
   409 aborted. A finished record with the same fingerprint is replayed; with
   another fingerprint the request is refused with 400.
2. The operation stores its response into the record with `complete`, inside
   its own write transaction, so effects and record commit together.
3. A 4xx error (other than 401 and 429) is stored by `finish_error`; a 5xx,
   429 or 401 releases the marker so a later retry runs again.
4. A stored answer names the application it is about (`application_id`: the path's
   `clientId`, else the `clientId` of the answer's body). Erasing that application turns the
   record `erased` and drops the answer (`gatehouse.erasure.service`); a replay then answers
   410 `failed-precondition`, as the request itself would now, and the operation still does
   not run again (docs/documents.md §6).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import orjson
from fastapi import Request
from sqlalchemy import Delete, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from starlette.responses import Response

from gatehouse.errors import ABORTED, INVALID_ARGUMENT, GatehouseError
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import IdempotencyRecord
from gatehouse.storage.tx_statements import Tx
from gatehouse.web.errors import error_body

HEADER = "idempotency-key"
KEY_RE = re.compile(r"[\x20-\x7e]{1,255}")
RETENTION = timedelta(hours=24)
IN_FLIGHT_LEASE = timedelta(seconds=60)
WRITE_METHODS = frozenset({"POST", "PATCH", "DELETE"})
# Headers that belong to one HTTP exchange, never replayed from the record.
_PER_RESPONSE = frozenset(
    {
        "service-request-id",
        "ratelimit-limit",
        "ratelimit-remaining",
        "ratelimit-reset",
        "content-length",
        "retry-after",
    }
)


@dataclass(slots=True)
class IdempotencyContext:
    tenant_id: str
    key: str
    record_id: int


class IdempotentReplay(Exception):
    """Raised by `begin` when a finished record answers the request."""

    def __init__(self, status_code: int, headers: dict[str, str], body: bytes) -> None:
        super().__init__("idempotent replay")
        self.status_code = status_code
        self.headers = headers
        self.body = body


def _runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


def fingerprint(method: str, path: str, query: str, body: bytes) -> str:
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), query.encode(), body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


async def begin(request: Request, tenant_id: str) -> None:
    """Claim the request's Idempotency-Key, or answer from its record."""
    if request.method not in WRITE_METHODS:
        return
    key = request.headers.get(HEADER)
    if key is None:
        return
    if not KEY_RE.fullmatch(key):
        raise GatehouseError(
            INVALID_ARGUMENT,
            "Idempotency-Key must be 1 to 255 printable ASCII characters.",
            details=[{"field": "Idempotency-Key", "issue": "invalid format"}],
        )
    runtime = _runtime(request)
    body = await request.body()
    print_ = fingerprint(request.method, request.url.path, request.url.query, body)
    now = runtime.now()
    replay: IdempotentReplay | None = None
    try:
        async with runtime.db.write() as session:
            stmt = select(IdempotencyRecord).where(
                IdempotencyRecord.tenant_id == tenant_id, IdempotencyRecord.key == key
            )
            if not runtime.db.is_sqlite:
                stmt = stmt.with_for_update()
            record = (await session.execute(stmt)).scalar_one_or_none()
            if record is not None and record.expires_at <= now:
                await session.delete(record)
                await session.flush()
                record = None
            if record is None:
                record = IdempotencyRecord(
                    tenant_id=tenant_id,
                    key=key,
                    fingerprint=print_,
                    state="in_flight",
                    created_at=now,
                    expires_at=now + RETENTION,
                    lease_until=now + IN_FLIGHT_LEASE,
                )
                session.add(record)
                await session.flush()
            elif record.fingerprint != print_:
                raise GatehouseError(
                    INVALID_ARGUMENT,
                    "This Idempotency-Key was used for a different request.",
                    details=[
                        {"field": "Idempotency-Key", "issue": "reused with different request data"}
                    ],
                )
            elif record.state == "done":
                replay = _decode(runtime, record)
            elif record.state == "erased":
                replay = _erased_replay()
            elif record.lease_until > now:
                raise _in_flight()
            else:
                # The first request died without finishing; this one takes over.
                record.lease_until = now + IN_FLIGHT_LEASE
            record_id = record.id
    except IntegrityError:
        raise _in_flight() from None
    if replay is not None:
        raise replay
    context = IdempotencyContext(tenant_id, key, record_id)
    request.state.idempotency = context

    async def release() -> None:
        await _release(runtime, context)

    request.state.idempotency_release = release


def _in_flight() -> GatehouseError:
    return GatehouseError(
        ABORTED,
        "A request with this Idempotency-Key is still in progress.",
        headers={"Retry-After": "1"},
    )


def _encode(runtime: Runtime, response: Response) -> str:
    headers = {
        k.decode("latin-1"): v.decode("latin-1")
        for k, v in response.raw_headers
        if k.decode("latin-1").lower() not in _PER_RESPONSE
    }
    payload = {"headers": headers, "body": bytes(response.body).decode()}
    return runtime.crypto.encrypt(orjson.dumps(payload))


def _decode(runtime: Runtime, record: IdempotencyRecord) -> IdempotentReplay:
    payload: dict[str, Any] = orjson.loads(runtime.crypto.decrypt(record.response_encrypted or ""))
    return IdempotentReplay(
        record.status_code or 200, dict(payload["headers"]), payload["body"].encode()
    )


def _erased_replay() -> IdempotentReplay:
    """The answer of a record whose application was erased: 410, nothing of the original."""
    body = orjson.dumps(error_body("failed-precondition", "The application was erased.", ""))
    return IdempotentReplay(410, {"content-type": "application/json"}, body)


def _subject(request: Request, response: Response) -> str | None:
    """The application an answer is about: the path's `clientId`, else the body's."""
    client_id = request.path_params.get("client_id")
    if isinstance(client_id, str):
        return client_id[:40]
    if not response.body or not response.headers.get("content-type", "").startswith(
        "application/json"
    ):
        return None
    try:
        data = orjson.loads(response.body)
    except ValueError:
        return None
    found = data.get("clientId") if isinstance(data, dict) else None
    return found[:40] if isinstance(found, str) else None


def _storable(status_code: int) -> bool:
    """5xx, 429 and 401 answers are never stored (docs/reference/tenant-api.md §4.6)."""
    return status_code < 500 and status_code not in (401, 429)


async def complete(
    session: AsyncSession | AsyncConnection | Tx, request: Request, response: Response
) -> None:
    """Store the response in the record, in the operation's own transaction.

    The context stays on the request: should the transaction still fail, the
    error handler (or the edge, for a crash) finds the record in flight and
    stores the error or releases the key.
    """
    context: IdempotencyContext | None = getattr(request.state, "idempotency", None)
    if context is None:
        return
    runtime = _runtime(request)
    request.state.idempotency_completed = True
    if not _storable(response.status_code):
        await session.execute(_release_statement(context))
        return
    await session.execute(
        update(IdempotencyRecord)
        .where(IdempotencyRecord.id == context.record_id, IdempotencyRecord.state == "in_flight")
        .values(
            state="done",
            status_code=response.status_code,
            response_encrypted=_encode(runtime, response),
            application_id=_subject(request, response),
        )
    )


async def finish_error(request: Request, response: Response) -> None:
    """After an error answer: keep 4xx answers, release on 401, 429 and 5xx."""
    context: IdempotencyContext | None = getattr(request.state, "idempotency", None)
    if context is None:
        return
    runtime = _runtime(request)
    request.state.idempotency = None
    request.state.idempotency_release = None
    status = response.status_code
    if not _storable(status):
        await _release(runtime, context)
        return
    async with runtime.db.write() as session:
        # Only a record still in flight: one the operation already completed keeps its answer.
        await session.execute(
            update(IdempotencyRecord)
            .where(
                IdempotencyRecord.id == context.record_id, IdempotencyRecord.state == "in_flight"
            )
            .values(
                state="done",
                status_code=status,
                response_encrypted=_encode(runtime, response),
                application_id=_subject(request, response),
            )
        )


def _release_statement(context: IdempotencyContext) -> Delete:
    return delete(IdempotencyRecord).where(
        IdempotencyRecord.id == context.record_id, IdempotencyRecord.state == "in_flight"
    )


async def _release(runtime: Runtime, context: IdempotencyContext) -> None:
    async with runtime.db.write() as session:
        await session.execute(_release_statement(context))


def replay_response(request: Request, replay: IdempotentReplay) -> Response:
    """The stored answer, with `Idempotent-Replayed: true` and this request's id."""
    body = replay.body
    if replay.status_code >= 400 and body:
        try:
            data = orjson.loads(body)
            data["error"]["requestId"] = request.state.request_id
            body = orjson.dumps(data)
        except (ValueError, KeyError, TypeError):
            pass
    headers = {k: v for k, v in replay.headers.items() if k.lower() != "content-length"}
    headers["Idempotent-Replayed"] = "true"
    return Response(body, status_code=replay.status_code, headers=headers)


async def purge_expired(runtime: Runtime, now: datetime | None = None) -> int:
    """Delete records past their 24 h retention; returns how many."""
    moment = now or runtime.now()
    async with runtime.db.write() as session:
        result = await session.execute(
            delete(IdempotencyRecord).where(IdempotencyRecord.expires_at <= moment)
        )
    return int(getattr(result, "rowcount", 0) or 0)
