"""Passkeys (WebAuthn) as a second factor (docs/staff-identity.md "Your account").

A signed-in staff member enrols several passkeys, names them and removes them; at sign-in a
passkey stands in for the TOTP code. The relying party is PUBLIC_URL's host, and only
PUBLIC_URL's origin is accepted. Registration challenges travel as a value signed by the key
ring and bound to the session; the sign-in challenge is kept in the sign-in flow. A failed
passkey counts as a failed sign-in.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import select
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url, parse_client_data_json
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)
from webauthn.registration.verify_registration_response import VerifiedRegistration

from gatehouse.accounts.identity import credential_for_update
from gatehouse.accounts.sessions import Flow, OpenedSession, end_flow, save_flow_payload
from gatehouse.accounts.sign_in import SignInFailed, complete_sign_in, locked, record_failure
from gatehouse.audit.context import WriteContext
from gatehouse.domain.normalize import cut_text
from gatehouse.domain.principals import StaffPrincipal
from gatehouse.errors import invalid_argument, not_found
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.storage.tables.core import StaffMember
from gatehouse.storage.tables.staff_identity import StaffPasskey

RP_NAME = "Gatehouse"
CHALLENGE_SECONDS = 300
# The authenticator must verify its user (a PIN, a fingerprint, the device's unlock): a found
# or stolen security key alone is not a second factor (docs/staff-identity.md, "Passkeys").
USER_VERIFICATION = UserVerificationRequirement.REQUIRED
MAX_NAME = 100


def relying_party(settings: Settings) -> tuple[str, str]:
    """(rp id, expected origin) from PUBLIC_URL."""
    parts = urlsplit(settings.base_url)
    return parts.hostname or "localhost", f"{parts.scheme}://{parts.netloc}"


# Why a new passkey was refused, in words (docs/staff-identity.md "Passkeys").
EXPIRED = "The passkey request expired or was already used. Try again."
NOT_CONFIRMED = (
    "The passkey could not be added: the device did not confirm it or did not verify you "
    "(a PIN, a fingerprint or the screen lock). Try again."
)


def wrong_address(origin: str, seen: str) -> str:
    return (
        f"Passkeys work only at {origin}, and this page is open at {seen}. "
        f"Open {origin}/dashboard and try again."
    )


def origin_of_credential(credential: object) -> str | None:
    """The origin the browser says it made `credential` at (its client data), or None."""
    response = credential.get("response") if isinstance(credential, dict) else None
    data = response.get("clientDataJSON") if isinstance(response, dict) else None
    if not isinstance(data, str) or len(data) > 10_000:
        return None
    try:
        return parse_client_data_json(base64url_to_bytes(data)).origin
    except (WebAuthnException, ValueError, TypeError):
        return None


def refusal_words(credential: object, origin: str) -> str:
    """Why a credential that failed verification was refused: made at another address than
    `origin` (a page opened at 127.0.0.1 when PUBLIC_URL says localhost), else not confirmed."""
    seen = origin_of_credential(credential)
    if seen is not None and seen != origin:
        return wrong_address(origin, seen)
    return NOT_CONFIRMED


def _descriptor(passkey: StaffPasskey) -> PublicKeyCredentialDescriptor:
    transports = [AuthenticatorTransport(t) for t in passkey.transports or [] if _transport(t)]
    return PublicKeyCredentialDescriptor(
        id=base64url_to_bytes(passkey.credential_id), transports=transports or None
    )


def _transport(value: str) -> bool:
    return value in {t.value for t in AuthenticatorTransport}


async def passkeys_of(runtime: Runtime, staff_id: str) -> list[StaffPasskey]:
    async with runtime.db.read() as session:
        return list(
            (
                await session.scalars(
                    select(StaffPasskey)
                    .where(StaffPasskey.staff_id == staff_id)
                    .order_by(StaffPasskey.created_at, StaffPasskey.id)
                )
            ).all()
        )


# Enrolment (a signed-in staff member).


def _sign_challenge(runtime: Runtime, session_id: str, challenge: bytes) -> str:
    expires = int(runtime.now().timestamp()) + CHALLENGE_SECONDS
    body = json.dumps({"s": session_id, "c": bytes_to_base64url(challenge), "e": expires}).encode()
    encoded = base64.urlsafe_b64encode(body).decode().rstrip("=")
    return f"{encoded}.{runtime.crypto.sign(body)}"


def _signed_challenge(runtime: Runtime, session_id: str, ticket: object) -> bytes | None:
    if not isinstance(ticket, str) or "." not in ticket or len(ticket) > 1000:
        return None
    encoded, _, mac = ticket.partition(".")
    try:
        body = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
        claims = json.loads(body)
    except ValueError:
        return None
    if not runtime.crypto.verify_signature(body, mac) or not isinstance(claims, dict):
        return None
    if claims.get("s") != session_id or int(claims.get("e", 0)) < runtime.now().timestamp():
        return None
    return base64url_to_bytes(str(claims.get("c", "")))


def registration_verified(
    credential: dict[str, Any], challenge: bytes, rp_id: str, origin: str
) -> VerifiedRegistration | None:
    """The new credential when its attestation checks out, user verification included."""
    try:
        return verify_registration_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
            require_user_verification=True,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError):
        return None


async def registration_options(
    runtime: Runtime, principal: StaffPrincipal, session_id: str
) -> dict[str, Any]:
    """`{options, ticket}`: the creation options for the browser, and the signed challenge
    to send back with the new credential."""
    rp_id, _ = relying_party(runtime.settings)
    existing = await passkeys_of(runtime, principal.staff_id)
    options = generate_registration_options(
        rp_id=rp_id,
        rp_name=RP_NAME,
        user_name=principal.email,
        user_id=principal.staff_id.encode(),
        exclude_credentials=[_descriptor(p) for p in existing],
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.PREFERRED,
            user_verification=USER_VERIFICATION,
        ),
        timeout=CHALLENGE_SECONDS * 1000,
    )
    return {
        "options": json.loads(options_to_json(options)),
        "ticket": _sign_challenge(runtime, session_id, options.challenge),
    }


def check_passkey_name(name: object) -> str:
    cut = cut_text(name) if isinstance(name, str) else None
    if not cut:
        raise invalid_argument("Give the passkey a name.", "name", "required")
    return cut[:MAX_NAME]


async def enrol_passkey(
    runtime: Runtime,
    principal: StaffPrincipal,
    session_id: str,
    name: object,
    credential: object,
    ticket: object,
    ctx: WriteContext,
) -> dict[str, Any]:
    """Verify a new credential against its signed challenge and keep it under `name`."""
    label = check_passkey_name(name)
    challenge = _signed_challenge(runtime, session_id, ticket)
    if challenge is None:
        raise invalid_argument(EXPIRED, "credential")
    rp_id, origin = relying_party(runtime.settings)
    if not isinstance(credential, dict):
        raise invalid_argument(NOT_CONFIRMED, "credential")
    verified = registration_verified(credential, challenge, rp_id, origin)
    if verified is None:
        raise invalid_argument(refusal_words(credential, origin), "credential")
    response = credential.get("response")
    transports = response.get("transports") if isinstance(response, dict) else None
    credential_id = bytes_to_base64url(verified.credential_id)
    async with runtime.db.write() as session:
        taken = await session.scalar(
            select(StaffPasskey.id).where(StaffPasskey.credential_id == credential_id)
        )
        if taken is not None:
            raise invalid_argument("This passkey is already enrolled.", "credential")
        passkey = StaffPasskey(
            id=new_id("pky"),
            staff_id=principal.staff_id,
            credential_id=credential_id,
            public_key=bytes_to_base64url(verified.credential_public_key),
            sign_count=verified.sign_count,
            name=label,
            transports=[t for t in transports if isinstance(t, str) and _transport(t)]
            if isinstance(transports, list)
            else None,
            created_at=ctx.now,
        )
        session.add(passkey)
        ctx.audit(session, "staff.factor_enrolled.passkey", passkey.id)
    return {"passkeyId": passkey.id, "name": label}


async def remove_passkey(
    runtime: Runtime, principal: StaffPrincipal, passkey_id: str, ctx: WriteContext
) -> None:
    """Remove one of one's own passkeys (404 for any other)."""
    async with runtime.db.write() as session:
        passkey = await session.scalar(
            select(StaffPasskey).where(
                StaffPasskey.id == passkey_id, StaffPasskey.staff_id == principal.staff_id
            )
        )
        if passkey is None:
            raise not_found("No such passkey.")
        await session.delete(passkey)
        ctx.audit(session, "staff.factor_removed.passkey", passkey_id)


# Sign-in with a passkey (the second step).


@dataclass(frozen=True, slots=True)
class PasskeyChallenge:
    options: dict[str, Any]


async def sign_in_options(runtime: Runtime, flow: Flow) -> PasskeyChallenge:
    """The request options for the second step; the challenge is kept in the flow."""
    if flow.staff_id is None or flow.purpose != "second_factor":
        raise SignInFailed(flow_ended=True)
    rp_id, _ = relying_party(runtime.settings)
    passkeys = await passkeys_of(runtime, flow.staff_id)
    options = generate_authentication_options(
        rp_id=rp_id,
        allow_credentials=[_descriptor(p) for p in passkeys],
        user_verification=USER_VERIFICATION,
        timeout=CHALLENGE_SECONDS * 1000,
    )
    payload = {**flow.payload, "passkey_challenge": bytes_to_base64url(options.challenge)}
    await save_flow_payload(runtime, flow.flow_id, payload)
    return PasskeyChallenge(json.loads(options_to_json(options)))


async def passkey_step(
    runtime: Runtime, flow: Flow, credential: object, ctx: WriteContext
) -> OpenedSession:
    """Step two with a passkey; a failure counts like a wrong code."""
    staff_id = flow.staff_id
    challenge = flow.payload.get("passkey_challenge")
    if staff_id is None or flow.purpose != "second_factor" or not isinstance(challenge, str):
        raise SignInFailed(flow_ended=staff_id is None)
    rp_id, origin = relying_party(runtime.settings)
    async with runtime.db.write() as session:
        credential_row = await credential_for_update(session, staff_id)
        member = await session.get(StaffMember, staff_id)
        passkey = await _passkey_for(session, staff_id, credential)
        if (
            passkey is not None
            and member is not None
            and member.status == "active"
            and not locked(credential_row, ctx.now)
            and _verified(passkey, credential, challenge, rp_id, origin, ctx.now)
        ):
            return await complete_sign_in(session, runtime, staff_id, ctx, "passkey", flow)
    ended = await record_failure(runtime, staff_id, ctx)
    async with runtime.db.write() as session:
        if ended:
            await end_flow(session, flow.flow_id, ctx.now)
    # A challenge is good for one try.
    await save_flow_payload(
        runtime, flow.flow_id, {k: v for k, v in flow.payload.items() if k != "passkey_challenge"}
    )
    raise SignInFailed(flow_ended=ended)


async def _passkey_for(session: Any, staff_id: str, credential: object) -> StaffPasskey | None:
    if not isinstance(credential, dict) or not isinstance(credential.get("id"), str):
        return None
    result: StaffPasskey | None = await session.scalar(
        select(StaffPasskey).where(
            StaffPasskey.staff_id == staff_id,
            StaffPasskey.credential_id == credential["id"][:1400],
        )
    )
    return result


def _verified(
    passkey: StaffPasskey,
    credential: object,
    challenge: str,
    rp_id: str,
    origin: str,
    now: datetime,
) -> bool:
    try:
        verified = verify_authentication_response(
            credential=credential,  # type: ignore[arg-type]
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=base64url_to_bytes(passkey.public_key),
            credential_current_sign_count=passkey.sign_count,
            require_user_verification=True,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError):
        return False
    passkey.sign_count = verified.new_sign_count
    passkey.last_used_at = now
    return True
