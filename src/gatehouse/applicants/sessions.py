"""Applicant portal sessions (docs/reference/portal.md): redeeming a sign-in link,
resolving a session token to who it acts for, and ending a session.

Only keyed hashes of link and session tokens are stored. A session stops working at once
(403) when its application is locked or erased or its member removed; a missing, ended or
expired session is 401. The cookie and the origin rule are the portal surface's
(`portal/session_http.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import applications
from gatehouse.audit.context import WriteContext
from gatehouse.domain.status import ApplicationStatus
from gatehouse.errors import UNAUTHORIZED, GatehouseError, permission_denied
from gatehouse.ids import new_id, random_token
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, LoginLink, Member, PortalSession

SESSION_LIFETIME = timedelta(hours=12)
PORTAL_PREFIX = "/portal"


class LinkUnusable(Exception):
    """A used, expired, revoked or locked link; the answer never says which."""


@dataclass(frozen=True, slots=True)
class Redemption:
    session_token: str
    location: str
    expires_at: datetime

    def __repr__(self) -> str:  # the token is a credential
        return f"Redemption(location={self.location!r})"


def applicant_actor(member_id: str) -> str:
    """How the audit trail names a member acting through the portal."""
    return f"applicant:{member_id}"


@dataclass(frozen=True, slots=True)
class PortalContext:
    """Who a portal request acts for: a live session of one member."""

    session_id: str
    application_id: str
    tenant_id: str
    member_id: str
    email: str
    role: str
    csrf_token: str

    @property
    def actor(self) -> str:
        return applicant_actor(self.member_id)


def landing_path(application: Application, redirect_path: str | None) -> str:
    """`/portal` + redirectPath, else a page chosen from the application's state."""
    if redirect_path:
        return PORTAL_PREFIX + redirect_path
    if application.status == ApplicationStatus.NEEDS_INFO:
        return PORTAL_PREFIX + "/requests"
    if application.submitted_at is None:
        return PORTAL_PREFIX + "/form-parser"
    return PORTAL_PREFIX + "/status"


async def redeem_link(runtime: Runtime, token: str, request_id: str | None) -> Redemption:
    """Consume a sign-in link and start a session (docs/reference/portal.md §3).

    The link is marked used in the transaction that creates the session, by a
    guarded update, so of two concurrent redemptions exactly one wins.

    The application row is locked first, as by every change of an application: locking the
    application takes its row and then its links and sessions, so a redemption that took
    the link first would deadlock with it on PostgreSQL (one waiting for the link, the other
    for the application row its new session refers to).
    """
    now = runtime.now()
    token_hashes = runtime.crypto.hash_candidates(token)
    async with runtime.db.write() as session:
        named = select(LoginLink.application_id).where(LoginLink.token_hash.in_(token_hashes))
        application_id = (await session.execute(named)).scalar_one_or_none()
        if application_id is None:
            raise LinkUnusable
        application = await applications.application_by_id(session, application_id, for_update=True)
        stmt = select(LoginLink).where(LoginLink.token_hash.in_(token_hashes))
        if not runtime.db.is_sqlite:
            stmt = stmt.with_for_update()
        link = (await session.execute(stmt)).scalar_one_or_none()
        if link is None or link.used_at is not None or link.revoked_at is not None:
            raise LinkUnusable
        if link.expires_at <= now:
            raise LinkUnusable
        if application is None or application.erased_at is not None or application.locked:
            raise LinkUnusable
        member = await session.get(Member, link.member_id)
        if member is None or member.application_id != application.id:
            raise LinkUnusable
        claimed = await session.execute(
            update(LoginLink)
            .where(
                LoginLink.id == link.id,
                LoginLink.used_at.is_(None),
                LoginLink.revoked_at.is_(None),
            )
            .values(used_at=now)
        )
        if getattr(claimed, "rowcount", 0) != 1:
            raise LinkUnusable
        session_token = random_token(48)
        expires_at = now + SESSION_LIFETIME
        session.add(
            PortalSession(
                id=new_id("pss"),
                application_id=application.id,
                member_id=member.id,
                token_hash=runtime.crypto.hash_secret(session_token),
                csrf_token=random_token(32),
                created_at=now,
                expires_at=expires_at,
            )
        )
        if application.signed_in_at is None:  # the first sign-in (docs/insights.md)
            application.signed_in_at = now
        # Who signs in is known only now: the link names the member.
        ctx = WriteContext(applicant_actor(member.id), application.tenant_id, request_id, now)
        ctx.audit(session, "portal.login", application.id, application.id)
        location = landing_path(application, link.redirect_path)
    return Redemption(session_token, location, expires_at)


async def context_for_token(
    session: AsyncSession, runtime: Runtime, token: str | None
) -> PortalContext:
    """The live session named by the cookie value (see the module docstring)."""
    if not token:
        raise GatehouseError(UNAUTHORIZED, "Sign in with your link first.")
    portal_session = (
        await session.execute(
            select(PortalSession).where(
                PortalSession.token_hash.in_(runtime.crypto.hash_candidates(token))
            )
        )
    ).scalar_one_or_none()
    if portal_session is None:
        raise GatehouseError(UNAUTHORIZED, "Sign in with your link first.")
    application = await session.get(Application, portal_session.application_id)
    if application is None:
        raise GatehouseError(UNAUTHORIZED, "Sign in with your link first.")
    if application.erased_at is not None or application.locked:
        raise permission_denied("Access to this application is not available.")
    member = await session.get(Member, portal_session.member_id)
    if member is None or member.application_id != application.id:
        raise permission_denied("You are no longer a member of this application.")
    if portal_session.ended_at is not None or portal_session.expires_at <= runtime.now():
        raise GatehouseError(UNAUTHORIZED, "Your session has ended; sign in again.")
    return PortalContext(
        session_id=portal_session.id,
        application_id=application.id,
        tenant_id=application.tenant_id,
        member_id=member.id,
        email=member.email,
        role=member.role,
        csrf_token=portal_session.csrf_token,
    )


async def end_session(runtime: Runtime, context: PortalContext) -> None:
    """Logout: the session ends on the server (docs/reference/portal.md §7.8)."""
    now = runtime.now()
    async with runtime.db.write() as session:
        await session.execute(
            update(PortalSession)
            .where(PortalSession.id == context.session_id, PortalSession.ended_at.is_(None))
            .values(ended_at=now)
        )
