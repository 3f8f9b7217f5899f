"""Passkeys need user verification (docs/staff-identity.md, "Passkeys"): the options ask for it,
and a registration or an assertion whose authenticator data lacks the UV flag is refused even
when the browser sent it (a client that ignores the options, an authenticator without a PIN).
The credentials are made here with a real P-256 key, signed as an authenticator signs them."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

import cbor2
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import bytes_to_base64url

from gatehouse.accounts import passkeys
from gatehouse.storage.tables.staff_identity import StaffPasskey

RP_ID = "gatehouse.example.test"
ORIGIN = "https://gatehouse.example.test"
CHALLENGE = b"c" * 32
CREDENTIAL_ID = b"credential-0001"
UP, UV, AT = 0x01, 0x04, 0x40


def _cose(key: ec.EllipticCurvePrivateKey) -> bytes:
    numbers = key.public_key().public_numbers()
    return cbor2.dumps(
        {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
    )


def _client_data(kind: str) -> bytes:
    return json.dumps(
        {"type": kind, "challenge": bytes_to_base64url(CHALLENGE), "origin": ORIGIN}
    ).encode()


def registration(key: ec.EllipticCurvePrivateKey, flags: int) -> dict[str, object]:
    attested = bytes(16) + len(CREDENTIAL_ID).to_bytes(2, "big") + CREDENTIAL_ID + _cose(key)
    auth_data = hashlib.sha256(RP_ID.encode()).digest() + bytes([flags | AT]) + bytes(4) + attested
    attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
    raw_id = bytes_to_base64url(CREDENTIAL_ID)
    return {
        "id": raw_id,
        "rawId": raw_id,
        "type": "public-key",
        "response": {
            "clientDataJSON": bytes_to_base64url(_client_data("webauthn.create")),
            "attestationObject": bytes_to_base64url(attestation),
        },
        "clientExtensionResults": {},
    }


def assertion(key: ec.EllipticCurvePrivateKey, flags: int) -> dict[str, object]:
    auth_data = hashlib.sha256(RP_ID.encode()).digest() + bytes([flags]) + (1).to_bytes(4, "big")
    client_data = _client_data("webauthn.get")
    signed = auth_data + hashlib.sha256(client_data).digest()
    raw_id = bytes_to_base64url(CREDENTIAL_ID)
    return {
        "id": raw_id,
        "rawId": raw_id,
        "type": "public-key",
        "response": {
            "clientDataJSON": bytes_to_base64url(client_data),
            "authenticatorData": bytes_to_base64url(auth_data),
            "signature": bytes_to_base64url(key.sign(signed, ec.ECDSA(hashes.SHA256()))),
            "userHandle": None,
        },
        "clientExtensionResults": {},
    }


def test_the_options_ask_for_user_verification() -> None:
    assert passkeys.USER_VERIFICATION.value == "required"


@pytest.mark.parametrize(("flags", "kept"), [(UP | UV, True), (UP, False)], ids=["uv", "no-uv"])
def test_registration_needs_the_uv_flag(flags: int, kept: bool) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    found = passkeys.registration_verified(registration(key, flags), CHALLENGE, RP_ID, ORIGIN)
    assert (found is not None) == kept


@pytest.mark.parametrize(("flags", "kept"), [(UP | UV, True), (UP, False)], ids=["uv", "no-uv"])
def test_sign_in_needs_the_uv_flag(flags: int, kept: bool) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    passkey = StaffPasskey(
        id="pk_test",
        staff_id="stf_test",
        credential_id=bytes_to_base64url(CREDENTIAL_ID),
        public_key=bytes_to_base64url(_cose(key)),
        sign_count=0,
    )
    now = datetime.now(UTC)
    verified = passkeys._verified(
        passkey, assertion(key, flags), bytes_to_base64url(CHALLENGE), RP_ID, ORIGIN, now
    )
    assert verified is kept
