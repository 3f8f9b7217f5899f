"""Managing webhook endpoints (docs/reference/webhooks.md §4).

Routes validate the request (including the DNS part of the URL check, kept
outside the write transaction) and then call one function here inside their
`db.write()` block. Every write is audited.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictStr
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.crypto import Crypto
from gatehouse.domain.principals import TenantPrincipal
from gatehouse.domain.webhooks import DeliveryStatus, EndpointStatus
from gatehouse.errors import failed_precondition, invalid_argument, not_found
from gatehouse.ids import new_id
from gatehouse.outbound.url_safety import UnsafeUrl, check_url
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.webhooks import WebhookEndpoint, WebhookSecret
from gatehouse.timeutil import format_ts
from gatehouse.webhooks import health, queries, rules
from gatehouse.webhooks.connectivity import send_test
from gatehouse.webhooks.outbox import environment_of
from gatehouse.webhooks.schemas import (
    CreatedWebhookEndpoint,
    RotatedSecret,
    WebhookEndpointList,
    endpoint_view,
)
from gatehouse.webhooks.schemas import (
    WebhookEndpoint as EndpointView,
)

MAX_DESCRIPTION = 500


class CreateWebhookBody(BaseModel):
    """`POST /v1/webhooks` body (docs/reference/webhooks.md §4.2)."""

    model_config = ConfigDict(extra="ignore")

    url: StrictStr
    events: list[StrictStr]
    description: StrictStr | None = None


class UpdateWebhookBody(BaseModel):
    """`PATCH /v1/webhooks/{id}` body: any of url, events, description."""

    model_config = ConfigDict(extra="ignore")

    url: StrictStr | None = None
    events: list[StrictStr] | None = None
    description: StrictStr | None = None


@dataclass(frozen=True)
class EndpointChanges:
    """Validated values to store; None means "leave as is"."""

    url: str | None = None
    events: list[str] | None = None
    description: str | None = None


@dataclass(frozen=True)
class NewEndpoint:
    """Validated values of a new endpoint."""

    url: str
    events: list[str]
    description: str | None = None


async def validate_url(runtime: Runtime, url: str) -> str:
    """The receiver URL rules (docs/reference/webhooks.md §6.8), 400 invalid-argument naming why.

    With WEBHOOK_ALLOW_PRIVATE_URLS (development) the name is not looked up at
    registration; every delivery still resolves it.
    """
    allow_private = runtime.settings.webhook_allow_private_urls
    try:
        await check_url(url, allow_private=allow_private, resolve=not allow_private)
    except UnsafeUrl as exc:
        raise invalid_argument(f"The url is not allowed: {exc}.", "url", str(exc)) from None
    return url


def validate_events(events: list[str]) -> list[str]:
    try:
        return rules.normalize_filter(events)
    except rules.InvalidFilter as exc:
        raise invalid_argument(
            f"The events filter is not valid: {exc}.", "events", str(exc)
        ) from None


def validate_description(description: str | None) -> str | None:
    if description is None:
        return None
    text = description.strip()
    if len(text) > MAX_DESCRIPTION:
        raise invalid_argument(
            f"description must be at most {MAX_DESCRIPTION} characters.",
            "description",
            "too long",
        )
    return text


async def validated_create(runtime: Runtime, body: CreateWebhookBody) -> NewEndpoint:
    url = await validate_url(runtime, body.url)
    events = validate_events(body.events)
    return NewEndpoint(url=url, events=events, description=validate_description(body.description))


async def validated_update(runtime: Runtime, body: UpdateWebhookBody) -> EndpointChanges:
    url = await validate_url(runtime, body.url) if body.url is not None else None
    events = validate_events(body.events) if body.events is not None else None
    return EndpointChanges(
        url=url, events=events, description=validate_description(body.description)
    )


async def load_endpoint(
    session: AsyncSession, tenant_id: str, endpoint_id: str, *, lock: bool = False
) -> WebhookEndpoint:
    """The tenant's live endpoint, else 404 (another tenant's looks the same as none)."""
    endpoint = await queries.live_endpoint(session, tenant_id, endpoint_id, lock=lock)
    if endpoint is None:
        raise not_found("The webhook endpoint was not found.")
    return endpoint


async def create_endpoint(
    session: AsyncSession,
    runtime: Runtime,
    ctx: WriteContext,
    principal: TenantPrincipal,
    changes: NewEndpoint,
) -> CreatedWebhookEndpoint:
    """Register an endpoint; the response carries its secret once
    (docs/reference/webhooks.md §4.2)."""
    now = ctx.now
    tenant = await queries.tenant_for_update(session, principal.tenant_id)
    if tenant is None:
        raise not_found("The tenant was not found.")
    count = await queries.live_endpoint_count(session, principal.tenant_id)
    cap = tenant.webhook_endpoint_cap if tenant.webhook_endpoint_cap is not None else 5
    if count >= cap:
        raise failed_precondition(f"The tenant already has its maximum of {cap} webhook endpoints.")
    endpoint = WebhookEndpoint(
        id=new_id("we"),
        tenant_id=principal.tenant_id,
        url=changes.url,
        events=changes.events,
        description=changes.description or "",
        status=EndpointStatus.ENABLED,
        disabled_reason=None,
        consecutive_failures=0,
        created_at=now,
        updated_at=now,
    )
    session.add(endpoint)
    await session.flush()
    secret = rules.new_secret()
    session.add(_secret_row(runtime.crypto, endpoint.id, secret, generation=1, now=now))
    ctx.audit(session, "webhook.create", endpoint.id)
    return {**endpoint_view(endpoint), "secret": secret}


def _secret_row(
    crypto: Crypto, endpoint_id: str, secret: str, *, generation: int, now: datetime
) -> WebhookSecret:
    return WebhookSecret(
        id=new_id("whs"),
        endpoint_id=endpoint_id,
        generation=generation,
        secret_encrypted=crypto.encrypt_text(secret),
        created_at=now,
        expires_at=None,
    )


async def list_endpoints(session: AsyncSession, tenant_id: str) -> WebhookEndpointList:
    rows = await queries.live_endpoints(session, tenant_id)
    return {"data": [endpoint_view(e) for e in rows]}


async def update_endpoint(
    session: AsyncSession,
    ctx: WriteContext,
    principal: TenantPrincipal,
    endpoint_id: str,
    changes: EndpointChanges,
) -> EndpointView:
    endpoint = await load_endpoint(session, principal.tenant_id, endpoint_id, lock=True)
    if changes.url is not None:
        endpoint.url = changes.url
    if changes.events is not None:
        endpoint.events = changes.events
    if changes.description is not None:
        endpoint.description = changes.description
    endpoint.updated_at = ctx.now
    ctx.audit(session, "webhook.update", endpoint.id)
    return endpoint_view(endpoint)


async def delete_endpoint(
    session: AsyncSession, ctx: WriteContext, principal: TenantPrincipal, endpoint_id: str
) -> None:
    """Remove the endpoint; its pending deliveries become `cancelled`
    (docs/reference/webhooks.md §4.6)."""
    endpoint = await load_endpoint(session, principal.tenant_id, endpoint_id, lock=True)
    endpoint.deleted_at = ctx.now
    endpoint.updated_at = ctx.now
    await queries.end_pending(
        session, endpoint.id, status=DeliveryStatus.CANCELLED, reason="endpoint deleted"
    )
    ctx.audit(session, "webhook.delete", endpoint.id)


async def enable(
    session: AsyncSession, ctx: WriteContext, principal: TenantPrincipal, endpoint_id: str
) -> EndpointView:
    endpoint = await load_endpoint(session, principal.tenant_id, endpoint_id, lock=True)
    health.enable_endpoint(endpoint, now=ctx.now)
    ctx.audit(session, "webhook.enable", endpoint.id)
    return endpoint_view(endpoint)


async def disable(
    session: AsyncSession, ctx: WriteContext, principal: TenantPrincipal, endpoint_id: str
) -> EndpointView:
    endpoint = await load_endpoint(session, principal.tenant_id, endpoint_id, lock=True)
    await health.disable_endpoint(session, endpoint, reason=rules.REASON_MANUAL, now=ctx.now)
    ctx.audit(session, "webhook.disable", endpoint.id)
    return endpoint_view(endpoint)


async def active_secrets(
    session: AsyncSession, crypto: Crypto, endpoint_id: str, now: datetime
) -> list[str]:
    """The endpoint's active secrets, newest first (docs/reference/webhooks.md §6.2)."""
    rows = await queries.active_secret_rows(session, endpoint_id, now)
    return [crypto.decrypt_text(row.secret_encrypted) for row in rows]


async def rotate_secret(
    session: AsyncSession,
    runtime: Runtime,
    ctx: WriteContext,
    principal: TenantPrincipal,
    endpoint_id: str,
) -> RotatedSecret:
    """New secret; the previous one stays active 24 h, any older one expires now
    (docs/reference/webhooks.md §4.9)."""
    now = ctx.now
    endpoint = await load_endpoint(session, principal.tenant_id, endpoint_id, lock=True)
    rows = await queries.secrets_newest_first(session, endpoint.id)
    active = [row for row in rows if row.expires_at is None or row.expires_at > now]
    previous_expires = now + rules.PREVIOUS_SECRET_LIFETIME
    if active:
        newest, older = active[0], active[1:]
        newest.expires_at = previous_expires
        for row in older:
            row.expires_at = now  # at most two active: the oldest goes at once
    generation = (rows[0].generation if rows else 0) + 1
    secret = rules.new_secret()
    session.add(_secret_row(runtime.crypto, endpoint.id, secret, generation=generation, now=now))
    endpoint.updated_at = now
    ctx.audit(session, "webhook.rotate_secret", endpoint.id)
    return {"secret": secret, "previousSecretExpiresAt": format_ts(previous_expires)}


def record_test_send(session: AsyncSession, ctx: WriteContext, endpoint_id: str) -> None:
    """Audit a test send; the send itself leaves no other trace
    (docs/reference/webhooks.md §4.10)."""
    ctx.audit(session, "webhook.test", endpoint_id)


async def send_test_event(runtime: Runtime, tenant_id: str, endpoint_id: str) -> dict[str, Any]:
    """One signed `webhook.test` to the tenant's endpoint, now: `{success, httpStatus,
    latencyMs, responseSnippet, sentHeaders, error}` (docs/reference/webhooks.md §4.10).

    Reads the endpoint and its secrets, then posts outside any transaction; the caller
    records the send with `record_test_send` afterwards. 404 for another tenant's endpoint.
    """
    now = runtime.now()
    async with runtime.db.read() as session:
        endpoint = await load_endpoint(session, tenant_id, endpoint_id)
        secrets = await active_secrets(session, runtime.crypto, endpoint.id, now)
        environment = await environment_of(session, tenant_id)
    return await send_test(
        url=endpoint.url,
        tenant_id=tenant_id,
        endpoint_id=endpoint.id,
        secrets=secrets,
        now=now,
        allow_private=runtime.settings.webhook_allow_private_urls,
        environment=environment,
    )
