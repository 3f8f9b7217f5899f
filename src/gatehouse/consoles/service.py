"""Tenant console links and sessions (docs/console.md).

An API key holding webhooks:manage mints a single-use link valid 10 minutes; using it opens
a console session that acts as that key: its tenant, its scopes, read-only while the tenant is
suspended. The session is read with its key and tenant on every request, so revoking the key
ends it at once, in every process. It ends after 60 minutes without a request and 8 hours after
it began. Only keyed digests of link tokens and cookie values are stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.consoles import queries
from gatehouse.consoles.schemas import ConsoleLinkView
from gatehouse.domain.principals import DEFAULT_SCOPES, ConsolePrincipal, TenantPrincipal
from gatehouse.ids import new_id, random_token
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.console import ConsoleLink, ConsoleSession
from gatehouse.storage.tables.core import ApiKey
from gatehouse.timeutil import format_ts

LINK_LIFETIME = timedelta(minutes=10)
IDLE_TIMEOUT = timedelta(minutes=60)
SESSION_LIFETIME = timedelta(hours=8)
# `last_seen_at` is written at most this often (not on every page view).
TOUCH_EVERY = timedelta(seconds=60)
START_PATH = "/console/start/"
# Longer than any token or cookie value we make: refused before any lookup.
MAX_TOKEN = 128


class LinkUnusable(Exception):
    """A used, expired or unknown link (or one whose key was revoked); never says which."""


@dataclass(frozen=True, slots=True)
class OpenedConsole:
    """A new session: the cookie value is a credential, for this browser only."""

    cookie_value: str = field(repr=False)
    session_id: str


@dataclass(frozen=True, slots=True)
class LiveConsole:
    principal: ConsolePrincipal
    csrf_token: str = field(repr=False)
    # A new endpoint's secret waits to be shown once (`take_secret`).
    has_kept_secret: bool = False


def link_url(base_url: str, token: str) -> str:
    return base_url.rstrip("/") + START_PATH + token


def create_link(
    session: AsyncSession, runtime: Runtime, ctx: WriteContext, principal: TenantPrincipal
) -> ConsoleLinkView:
    """`POST /v1/console-sessions`: 201 `{url, expiresAt}` (docs/reference/tenant-api.md §5.16);
    audited `console.link_created`."""
    token = random_token(43)
    expires_at = ctx.now + LINK_LIFETIME
    link = ConsoleLink(
        id=new_id("csl"),
        tenant_id=principal.tenant_id,
        key_id=principal.key_id,
        token_hash=runtime.crypto.hash_secret(token),
        created_at=ctx.now,
        expires_at=expires_at,
    )
    session.add(link)
    ctx.audit(session, "console.link_created", link.id)
    return {"url": link_url(runtime.settings.base_url, token), "expiresAt": format_ts(expires_at)}


async def link_is_usable(runtime: Runtime, token: str) -> bool:
    """Whether a link could be used now (the Continue page's GET; consumes nothing)."""
    if not token or len(token) > MAX_TOKEN:
        return False
    async with runtime.db.read() as session:
        row = await queries.link_with_key_status(session, runtime.crypto.hash_candidates(token))
    if row is None:
        return False
    link, key_status = row
    return link.used_at is None and link.expires_at > runtime.now() and key_status == "active"


async def redeem_link(runtime: Runtime, token: str, request_id: str | None) -> OpenedConsole:
    """Use a link once and open a session (audited `console.sign_in` as `console:<keyId>`).

    The link is marked used by a guarded update in the transaction that creates the
    session, so of two concurrent uses exactly one wins.
    """
    if not token or len(token) > MAX_TOKEN:
        raise LinkUnusable
    now = runtime.now()
    async with runtime.db.write() as session:
        digests = runtime.crypto.hash_candidates(token)
        link = await queries.link_by_digest(session, digests, lock=not runtime.db.is_sqlite)
        if link is None or link.used_at is not None or link.expires_at <= now:
            raise LinkUnusable
        key = await session.get(ApiKey, link.key_id)
        if key is None or key.status != "active" or key.tenant_id != link.tenant_id:
            raise LinkUnusable
        if not await queries.claim_link(session, link.id, now):
            raise LinkUnusable
        cookie_value = random_token(48)
        record = ConsoleSession(
            id=new_id("css"),
            tenant_id=link.tenant_id,
            key_id=link.key_id,
            token_hash=runtime.crypto.hash_secret(cookie_value),
            csrf_token=random_token(40),
            created_at=now,
            expires_at=now + SESSION_LIFETIME,
            last_seen_at=now,
        )
        session.add(record)
        ctx = WriteContext(f"console:{link.key_id}", link.tenant_id, request_id, now)
        ctx.audit(session, "console.sign_in", record.id)
    return OpenedConsole(cookie_value, record.id)


def session_is_live(record: ConsoleSession, key_status: str, now: datetime) -> bool:
    """Not ended, inside both timeouts, and its key still active."""
    return (
        record.ended_at is None
        and record.expires_at > now
        and record.last_seen_at + IDLE_TIMEOUT > now
        and key_status == "active"
    )


async def find_session(runtime: Runtime, cookie_value: str | None) -> LiveConsole | None:
    """The live session named by a cookie value, with its key's scopes and its tenant's
    status as they are now; None when there is none. Keeps `last_seen_at` fresh."""
    if not cookie_value or len(cookie_value) > MAX_TOKEN:
        return None
    async with runtime.db.read() as session:
        row = await queries.session_with_key(session, runtime.crypto.hash_candidates(cookie_value))
    if row is None:
        return None
    record, key_status, scopes, tenant_status = row
    now = runtime.now()
    if not session_is_live(record, key_status, now):
        return None
    if now - record.last_seen_at >= TOUCH_EVERY:
        async with runtime.db.write() as session:
            await queries.touch_session(session, record.id, now)
    key = TenantPrincipal(
        record.tenant_id, record.key_id, frozenset(scopes or DEFAULT_SCOPES), tenant_status
    )
    kept = record.flash_encrypted is not None
    return LiveConsole(ConsolePrincipal(key, record.id), record.csrf_token, kept)


async def end_session(runtime: Runtime, ctx: WriteContext, session_id: str) -> None:
    """Sign-out: the session ends at once (audited `console.sign_out`)."""
    async with runtime.db.write() as session:
        await queries.close_session(session, session_id, ctx.now)
        ctx.audit(session, "console.sign_out", session_id)


async def keep_secret_for_next_page(
    session: AsyncSession, runtime: Runtime, session_id: str, endpoint_id: str, secret: str
) -> None:
    """Keep a new endpoint's secret, sealed, for the page the browser is sent to next (in
    the caller's transaction); `take_secret` shows it there once."""
    sealed = runtime.crypto.encrypt_text(json.dumps({"endpointId": endpoint_id, "secret": secret}))
    await queries.keep_flash(session, session_id, sealed)


async def take_secret(runtime: Runtime, session_id: str, endpoint_id: str) -> str | None:
    """The secret kept for this endpoint's page, once: it is cleared as it is read."""
    async with runtime.db.write() as session:
        record = await session.get(ConsoleSession, session_id)
        if record is None or record.flash_encrypted is None:
            return None
        sealed = record.flash_encrypted
        record.flash_encrypted = None
    kept = json.loads(runtime.crypto.decrypt_text(sealed))
    if not isinstance(kept, dict) or kept.get("endpointId") != endpoint_id:
        return None
    secret = kept.get("secret")
    return secret if isinstance(secret, str) else None
