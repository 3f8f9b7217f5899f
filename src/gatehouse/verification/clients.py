"""Verification clients: creation by staff, authentication, callback registration.

docs/reference/verification.md §2, §4.1, §5.3; docs/reference/staff-api.md §8.1. A
client's secret is shown once and kept
as a keyed hash; its callback passphrase is kept encrypted (it travels back
in every callback) and is never logged.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.domain.verification import MIN_PASSPHRASE_LENGTH
from gatehouse.ids import random_token
from gatehouse.outbound.url_safety import UnsafeUrl, check_url
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.verification import VerificationClient
from gatehouse.timeutil import format_ts
from gatehouse.verification.schemas import client_view

if TYPE_CHECKING:
    from gatehouse.verification.schemas import CreatedVerificationClient, VerificationClientView

__all__ = [
    "CallbackRegistrationError",
    "ClientPrincipal",
    "authenticate_client",
    "client_view",
    "create_client",
    "list_clients",
    "register_callback",
]

SECRET_LENGTH = 48
# Compared against when the client does not exist, so timing does not tell.
_ABSENT_HASH = "0" * 64


class CallbackRegistrationError(ValueError):
    """A registration the rules refuse (400); the message is safe to show."""


@dataclass(frozen=True, slots=True)
class ClientPrincipal:
    """A verification client acting on `/verify` with its own credentials."""

    uuid: str

    @property
    def actor(self) -> str:
        return f"verification_client:{self.uuid}"

    @property
    def tenant_id(self) -> None:
        """Verification clients belong to no tenant."""
        return None


@dataclass(frozen=True, slots=True)
class RegistrationInput:
    client_uuid: str
    client_secret: str
    callback_url: str
    callback_passphrase: str


async def create_client(
    session: AsyncSession,
    runtime: Runtime,
    ctx: WriteContext,
    *,
    name: str,
    customer_created_events: bool,
    sandbox: bool = False,
) -> CreatedVerificationClient:
    """Create a client (docs/reference/staff-api.md §8.1): `{clientUuid, clientSecret,
    name}`, secret shown once. A `sandbox` client may also drive its own customers
    (docs/sandbox.md)."""
    now = ctx.now
    secret = random_token(SECRET_LENGTH)
    client = VerificationClient(
        uuid=str(uuid.uuid4()),
        name=name,
        secret_hash=runtime.crypto.hash_secret(secret),
        customer_created_events=customer_created_events,
        sandbox=sandbox,
        created_at=now,
        updated_at=now,
    )
    session.add(client)
    ctx.audit(session, "verification.client.create", client.uuid)
    return {
        "clientUuid": client.uuid,
        "clientSecret": secret,
        "name": client.name,
        "customerCreatedEvents": client.customer_created_events,
        "sandbox": client.sandbox,
        "createdAt": format_ts(now),
    }


async def list_clients(session: AsyncSession) -> list[VerificationClientView]:
    rows = await session.scalars(
        select(VerificationClient).order_by(
            VerificationClient.created_at.desc(), VerificationClient.uuid.desc()
        )
    )
    return [client_view(client) for client in rows]


async def authenticate_client(
    session: AsyncSession, runtime: Runtime, client_uuid: str, client_secret: str
) -> VerificationClient | None:
    """The client whose uuid and secret both match, compared in constant time."""
    client = await session.get(VerificationClient, client_uuid) if client_uuid else None
    stored = client.secret_hash if client is not None else _ABSENT_HASH
    matches = runtime.crypto.verify_secret(client_secret, stored)
    return client if client is not None and matches else None


async def check_registration(runtime: Runtime, registration: RegistrationInput) -> None:
    """The registration rules (docs/reference/verification.md §4.1): a callback URL that
    passes every rule of a webhook receiver (outbound/url_safety.py: https, a public DNS
    name on port 443, and every address it resolves to public; WEBHOOK_ALLOW_PRIVATE_URLS
    relaxes them as for webhooks, without the lookup), a passphrase of at least 6
    characters. Deliveries check the URL again, as webhook deliveries do."""
    allow_private = runtime.settings.webhook_allow_private_urls
    try:
        await check_url(
            registration.callback_url, allow_private=allow_private, resolve=not allow_private
        )
    except UnsafeUrl as exc:
        raise CallbackRegistrationError(f"callbackUrl is not acceptable: {exc}.") from None
    if len(registration.callback_passphrase) < MIN_PASSPHRASE_LENGTH:
        raise CallbackRegistrationError(
            f"callbackPassphrase must be at least {MIN_PASSPHRASE_LENGTH} characters."
        )


async def register_callback(
    session: AsyncSession,
    runtime: Runtime,
    ctx: WriteContext,
    client: VerificationClient,
    registration: RegistrationInput,
) -> None:
    """Store (or replace) the client's callback; the passphrase is encrypted at rest.

    The registration has passed `check_registration` (outside the transaction: it looks
    the callback's name up)."""
    now = ctx.now
    client.callback_url = registration.callback_url
    client.callback_passphrase_encrypted = runtime.crypto.encrypt_text(
        registration.callback_passphrase
    )
    client.callback_registered_at = now
    client.updated_at = now
    ctx.audit(session, "verification.callback.register", client.uuid)
