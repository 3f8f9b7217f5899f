"""Dashboard sessions and the sign-in flows before them (docs/staff-identity.md "Sessions").

A session is a server-side record named by a random cookie value (only its keyed digest is
stored). It ends after 30 minutes without a request, 12 hours after it began, and at once on
sign-out, "sign out everywhere", deactivation, a role change or a reset. Every request reads
the record and the staff member from the database, so an ending made by any process takes
effect on the next request everywhere.

A sign-in flow is the state of a sign-in before its session: after the password, while a
second factor is awaited or enrolled, or during a round trip to the OpenID provider. It has
its own cookie, its own CSRF token, a sealed payload and a life of minutes. A successful sign-in
ends the flow and opens a new session under a new id and a new cookie value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.domain.principals import StaffPrincipal
from gatehouse.ids import new_id, random_token
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import StaffMember
from gatehouse.storage.tables.dashboard import DashboardSession
from gatehouse.storage.tables.staff_identity import StaffCredential, StaffSignInFlow

IDLE_TIMEOUT = timedelta(minutes=30)
SESSION_LIFETIME = timedelta(hours=12)
# `last_seen_at` is written at most this often (not on every page view).
TOUCH_EVERY = timedelta(seconds=60)
FLOW_LIFETIMES = {
    "second_factor": timedelta(minutes=10),
    "enrol": timedelta(minutes=30),
    "oidc": timedelta(minutes=10),
}
MAX_COOKIE_VALUE = 128


@dataclass(frozen=True, slots=True)
class OpenedSession:
    """A new session: the cookie value is a credential, shown to this browser only."""

    cookie_value: str = field(repr=False)
    session_id: str
    csrf_token: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class LiveSession:
    principal: StaffPrincipal
    session_id: str
    csrf_token: str = field(repr=False)


async def open_session(
    session: AsyncSession, runtime: Runtime, staff_id: str, ctx: WriteContext, method: str
) -> OpenedSession:
    """Open a session for `staff_id` inside the caller's transaction, audited as
    `dashboard.sign_in.<method>` (password, totp, recovery_code, passkey, oidc) with the
    session id as target."""
    cookie_value = random_token(48)
    record = DashboardSession(
        id=new_id("dsh"),
        staff_id=staff_id,
        token_hash=runtime.crypto.hash_secret(cookie_value),
        csrf_token=random_token(40),
        created_at=ctx.now,
        expires_at=ctx.now + SESSION_LIFETIME,
        last_seen_at=ctx.now,
    )
    session.add(record)
    credential = await session.get(StaffCredential, staff_id)
    if credential is None:
        session.add(StaffCredential(staff_id=staff_id, last_sign_in_at=ctx.now))
    else:
        credential.last_sign_in_at = ctx.now
    ctx.audit(session, f"dashboard.sign_in.{method}", record.id)
    return OpenedSession(cookie_value, record.id, record.csrf_token)


async def find_session(runtime: Runtime, cookie_value: str | None) -> LiveSession | None:
    """The live session named by a cookie value, or None (unknown, ended, expired, idle,
    or its staff member no longer active). Keeps `last_seen_at` fresh."""
    if not cookie_value or len(cookie_value) > MAX_COOKIE_VALUE:
        return None
    async with runtime.db.read() as session:
        row = (
            await session.execute(
                select(DashboardSession, StaffMember)
                .join(StaffMember, StaffMember.id == DashboardSession.staff_id)
                .where(
                    DashboardSession.token_hash.in_(runtime.crypto.hash_candidates(cookie_value))
                )
            )
        ).first()
    if row is None:
        return None
    record, staff = row
    now = runtime.now()
    last_seen = record.last_seen_at or record.created_at
    if (
        record.ended_at is not None
        or record.expires_at <= now
        or last_seen + IDLE_TIMEOUT <= now
        or staff.status != "active"
    ):
        return None
    if now - last_seen >= TOUCH_EVERY:
        async with runtime.db.write() as session:
            await session.execute(
                update(DashboardSession)
                .where(DashboardSession.id == record.id, DashboardSession.ended_at.is_(None))
                .values(last_seen_at=now)
            )
    principal = StaffPrincipal(staff.id, staff.email, staff.role)
    return LiveSession(principal, record.id, record.csrf_token)


async def end_session(runtime: Runtime, session_id: str, ctx: WriteContext) -> None:
    """Sign-out: the session ends at once."""
    async with runtime.db.write() as session:
        await session.execute(
            update(DashboardSession)
            .where(DashboardSession.id == session_id, DashboardSession.ended_at.is_(None))
            .values(ended_at=ctx.now)
        )
        ctx.audit(session, "dashboard.sign_out", session_id)


async def end_all_sessions(session: AsyncSession, staff_id: str, now: datetime) -> int:
    """End every open session of a staff member (in the caller's transaction)."""
    result = await session.execute(
        update(DashboardSession)
        .where(DashboardSession.staff_id == staff_id, DashboardSession.ended_at.is_(None))
        .values(ended_at=now)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


async def sign_out_everywhere(runtime: Runtime, staff_id: str, ctx: WriteContext) -> int:
    """End every session of the staff member, this one included; how many ended."""
    async with runtime.db.write() as session:
        ended = await end_all_sessions(session, staff_id, ctx.now)
        ctx.audit(session, "dashboard.sign_out_everywhere", staff_id)
    return ended


# Sign-in flows.


@dataclass(frozen=True, slots=True)
class Flow:
    flow_id: str
    purpose: str
    staff_id: str | None
    csrf_token: str = field(repr=False)
    next_path: str
    payload: dict[str, Any] = field(repr=False)


def _seal(runtime: Runtime, payload: dict[str, Any]) -> str:
    return runtime.crypto.encrypt_text(json.dumps(payload, separators=(",", ":")))


def _open(runtime: Runtime, sealed: str | None) -> dict[str, Any]:
    if not sealed:
        return {}
    loaded = json.loads(runtime.crypto.decrypt_text(sealed))
    return loaded if isinstance(loaded, dict) else {}


def start_flow(
    session: AsyncSession,
    runtime: Runtime,
    purpose: str,
    staff_id: str | None,
    next_path: str,
    now: datetime,
    payload: dict[str, Any] | None = None,
) -> tuple[str, Flow]:
    """A new flow in the caller's transaction; returns its cookie value and the flow."""
    cookie_value = random_token(48)
    record = StaffSignInFlow(
        id=new_id("sif"),
        token_hash=runtime.crypto.hash_secret(cookie_value),
        staff_id=staff_id,
        purpose=purpose,
        csrf_token=random_token(40),
        payload_encrypted=_seal(runtime, payload) if payload else None,
        next_path=next_path[:500],
        created_at=now,
        expires_at=now + FLOW_LIFETIMES[purpose],
    )
    session.add(record)
    flow = Flow(record.id, purpose, staff_id, record.csrf_token, record.next_path, payload or {})
    return cookie_value, flow


async def find_flow(runtime: Runtime, cookie_value: str | None, purpose: str) -> Flow | None:
    """The open flow of `purpose` named by a cookie value, or None."""
    if not cookie_value or len(cookie_value) > MAX_COOKIE_VALUE:
        return None
    async with runtime.db.read() as session:
        record = await session.scalar(
            select(StaffSignInFlow).where(
                StaffSignInFlow.token_hash.in_(runtime.crypto.hash_candidates(cookie_value))
            )
        )
    if (
        record is None
        or record.purpose != purpose
        or record.ended_at is not None
        or record.expires_at <= runtime.now()
    ):
        return None
    return Flow(
        record.id,
        record.purpose,
        record.staff_id,
        record.csrf_token,
        record.next_path,
        _open(runtime, record.payload_encrypted),
    )


async def save_flow_payload(runtime: Runtime, flow_id: str, payload: dict[str, Any]) -> None:
    async with runtime.db.write() as session:
        await session.execute(
            update(StaffSignInFlow)
            .where(StaffSignInFlow.id == flow_id)
            .values(payload_encrypted=_seal(runtime, payload))
        )


async def end_flow(session: AsyncSession, flow_id: str, now: datetime) -> bool:
    """End a flow in the caller's transaction; False when it had already ended (a second,
    concurrent completion of the same flow loses)."""
    result = await session.execute(
        update(StaffSignInFlow)
        .where(StaffSignInFlow.id == flow_id, StaffSignInFlow.ended_at.is_(None))
        .values(ended_at=now, payload_encrypted=None)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def end_flows_of(session: AsyncSession, staff_id: str, now: datetime) -> None:
    """End every open flow of a staff member (deactivation, reset)."""
    await session.execute(
        update(StaffSignInFlow)
        .where(StaffSignInFlow.staff_id == staff_id, StaffSignInFlow.ended_at.is_(None))
        .values(ended_at=now, payload_encrypted=None)
    )
