"""Verification clients: creation by staff, authentication, callback registration.

Spec 3 §4 and §5; CONTRACT §3 and §4. A client's secret is shown once and kept
as a keyed hash; its callback passphrase is kept encrypted (it travels back
in every callback) and is never logged.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import audit
from gatehouse.domain.verification import MIN_PASSPHRASE_LENGTH
from gatehouse.ids import random_token
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.verification import VerificationClient
from gatehouse.timeutil import format_ts
from gatehouse.webhooks.url_safety import UnsafeUrl, check_url_shape

__all__ = [
    "CallbackRegistrationError",
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
class RegistrationInput:
    client_uuid: str
    client_secret: str
    callback_url: str
    callback_passphrase: str


def client_view(client: VerificationClient) -> dict[str, Any]:
    """The staff view of a client: never the secret or the passphrase."""
    return {
        "clientUuid": client.uuid,
        "name": client.name,
        "customerCreatedEvents": client.customer_created_events,
        "callbackUrl": client.callback_url,
        "callbackRegisteredAt": format_ts(client.callback_registered_at),
        "createdAt": format_ts(client.created_at),
    }


async def create_client(
    session: AsyncSession,
    runtime: Runtime,
    *,
    name: str,
    customer_created_events: bool,
    actor: str,
    request_id: str | None,
) -> dict[str, Any]:
    """Create a client (CONTRACT §4): `{clientUuid, clientSecret, name}`, secret shown once."""
    now = runtime.now()
    secret = random_token(SECRET_LENGTH)
    client = VerificationClient(
        uuid=str(uuid.uuid4()),
        name=name,
        secret_hash=runtime.crypto.hash_secret(secret),
        customer_created_events=customer_created_events,
        created_at=now,
        updated_at=now,
    )
    session.add(client)
    audit.record(
        session,
        at=now,
        actor=actor,
        action="verification.client.create",
        target=client.uuid,
        request_id=request_id,
    )
    return {
        "clientUuid": client.uuid,
        "clientSecret": secret,
        "name": client.name,
        "customerCreatedEvents": client.customer_created_events,
        "createdAt": format_ts(now),
    }


async def list_clients(session: AsyncSession) -> list[dict[str, Any]]:
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


def check_registration(runtime: Runtime, registration: RegistrationInput) -> None:
    """Spec 3 §4 rules: an HTTPS callback (SSRF rules of CONTRACT §2.3, relaxed
    by WEBHOOK_ALLOW_PRIVATE_URLS), a passphrase of at least 6 characters."""
    try:
        check_url_shape(
            registration.callback_url,
            allow_private=runtime.settings.webhook_allow_private_urls,
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
    client: VerificationClient,
    registration: RegistrationInput,
    *,
    request_id: str | None,
) -> None:
    """Store (or replace) the client's callback; the passphrase is encrypted at rest."""
    check_registration(runtime, registration)
    now = runtime.now()
    client.callback_url = registration.callback_url
    client.callback_passphrase_encrypted = runtime.crypto.encrypt_text(
        registration.callback_passphrase
    )
    client.callback_registered_at = now
    client.updated_at = now
    audit.record(
        session,
        at=now,
        actor=f"verification_client:{client.uuid}",
        action="verification.callback.register",
        target=client.uuid,
        request_id=request_id,
    )
