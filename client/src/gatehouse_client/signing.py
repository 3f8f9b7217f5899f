"""Webhook signature verification (README: "Webhook receivers").

A Gatehouse delivery carries two header sets, each signed on its own:

- Gatehouse headers: `Gatehouse-Timestamp`, `Gatehouse-Signature` (`v1=<lowercase hex
  HMAC-SHA256 of "<timestamp>.<raw body>">`, the secret used as-is as UTF-8),
  `Gatehouse-Event-Id`, `Gatehouse-Event-Type`, `Gatehouse-Attempt`.
- Standard Webhooks headers (https://www.standardwebhooks.com): `webhook-id` (the
  event id), `webhook-timestamp` (the same Unix seconds) and `webhook-signature`
  (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`, keyed by the base64
  decoding of the secret after its `whsec_` prefix).

Either header set holds one signature per active secret, separated by single
spaces. `verify` checks one set in this order: raw bytes only, an integer
timestamp within the tolerance, one of the `v1` signatures matching any held
secret (every pair compared in constant time), then the body's `id` (and `type`)
equal to the headers and its `tenantId` one of the expected tenants.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import Collection, Iterable, Mapping
from datetime import datetime
from typing import Any

from gatehouse_client.events import Event

__all__ = [
    "DEFAULT_TOLERANCE",
    "GATEHOUSE_HEADERS",
    "STANDARD_WEBHOOKS_HEADERS",
    "SignatureError",
    "compute_signature",
    "compute_standard_signature",
    "signature_header",
    "standard_signature_header",
    "standard_webhooks_key",
    "verify",
]

DEFAULT_TOLERANCE = 300

# The names `Event.signature_scheme` takes: which header set `verify` checked.
GATEHOUSE_HEADERS = "gatehouse"
STANDARD_WEBHOOKS_HEADERS = "standard-webhooks"

SECRET_PREFIX = "whsec_"  # noqa: S105 - the format's prefix, not a secret

_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_HEX_SHA256 = re.compile(r"[0-9a-f]{64}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")

Headers = Mapping[str, str] | Iterable[tuple[str, str]]


class SignatureError(Exception):
    """A delivery that must not be trusted; answer it with a 4xx (400 or 401).

    `reason` is one of: `missing_timestamp`, `invalid_timestamp`,
    `timestamp_out_of_tolerance`, `missing_signature`, `no_v1_signature`,
    `missing_event_id` (no `webhook-id`), `no_usable_secret` (no held secret
    decodes as base64, so none can check `webhook-signature`),
    `signature_mismatch`, `invalid_body`, `event_id_mismatch`,
    `event_type_mismatch`, `unexpected_tenant`.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


# -- signing: the Gatehouse header set ------------------------------------------------------


def compute_signature(secret: str, timestamp: int | str, raw_body: bytes) -> str:
    """Lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`, the secret used as-is (UTF-8)."""
    message = str(timestamp).encode("ascii") + b"." + bytes(raw_body)
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def signature_header(secrets: Iterable[str], timestamp: int | str, raw_body: bytes) -> str:
    """A `Gatehouse-Signature` value: `v1=<hex>` per secret, space separated."""
    return " ".join(f"v1={compute_signature(s, timestamp, raw_body)}" for s in secrets)


# -- signing: the Standard Webhooks header set ----------------------------------------------


def standard_webhooks_key(secret: str) -> bytes | None:
    """The HMAC key of a secret for `webhook-signature`, or None when it has none.

    The key is the base64 decoding (standard alphabet, padding optional) of the
    secret after its `whsec_` prefix. Secrets issued before Gatehouse adopted
    Standard Webhooks are URL-safe text that may not be base64: they verify the
    Gatehouse headers only, and this returns None for them.
    """
    text = secret.removeprefix(SECRET_PREFIX)
    if not text or not _BASE64.fullmatch(text):
        return None
    text = text.rstrip("=")
    if len(text) % 4 == 1:
        return None
    try:
        key = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return key or None


def compute_standard_signature(
    secret: str, msg_id: str, timestamp: int | str, raw_body: bytes
) -> str:
    """Base64 HMAC-SHA256 of `<id>.<timestamp>.<raw body>` keyed by `standard_webhooks_key`.

    Raises ValueError for a secret that is not base64 after `whsec_`.
    """
    key = standard_webhooks_key(secret)
    if key is None:
        raise ValueError("the secret is not base64 after whsec_: no Standard Webhooks key")
    return base64.b64encode(_standard_digest(key, msg_id, str(timestamp), raw_body)).decode()


def standard_signature_header(
    secrets: Iterable[str], msg_id: str, timestamp: int | str, raw_body: bytes
) -> str:
    """A `webhook-signature` value: `v1,<base64>` per secret, space separated."""
    return " ".join(
        f"v1,{compute_standard_signature(s, msg_id, timestamp, raw_body)}" for s in secrets
    )


def _standard_digest(key: bytes, msg_id: str, timestamp: str, body: bytes) -> bytes:
    message = msg_id.encode("utf-8") + b"." + timestamp.encode("ascii") + b"." + body
    return hmac.new(key, message, hashlib.sha256).digest()


# -- verification ---------------------------------------------------------------------------


def _header(headers: Headers, name: str) -> str | None:
    """Case-insensitive header lookup over a mapping or (name, value) pairs."""
    wanted = name.lower()
    items: Iterable[tuple[Any, Any]]
    if isinstance(headers, Mapping):
        direct = headers.get(name)
        if direct is not None:
            return direct
        items = headers.items()
    else:
        items = headers
    for key, value in items:
        key_text = key.decode("latin-1") if isinstance(key, bytes) else str(key)
        if key_text.lower() == wanted:
            return value.decode("latin-1") if isinstance(value, bytes) else str(value)
    return None


def _now_seconds(now: float | datetime | None) -> float:
    if now is None:
        return time.time()
    if isinstance(now, datetime):
        if now.tzinfo is None:
            raise ValueError("now must be timezone-aware")
        return now.timestamp()
    return float(now)


def _timestamp(headers: Headers, name: str, tolerance: int, now: float | datetime | None) -> int:
    text = _header(headers, name)
    if text is None:
        raise SignatureError("missing_timestamp", f"{name} header is missing")
    text = text.strip()
    if not _TIMESTAMP.fullmatch(text):
        raise SignatureError("invalid_timestamp", f"{name} is not integer seconds")
    timestamp = int(text)
    if abs(_now_seconds(now) - timestamp) > tolerance:
        raise SignatureError("timestamp_out_of_tolerance", f"{name} is more than {tolerance}s away")
    return timestamp


def _any_match(expected: list[bytes], candidates: list[bytes]) -> bool:
    matched = False
    for digest in expected:
        for candidate in candidates:
            # Every pair is compared, so timing does not tell which one matched.
            matched |= hmac.compare_digest(digest, candidate)
    return matched


def _check_gatehouse(
    body: bytes, headers: Headers, held: list[str], tolerance: int, now: float | datetime | None
) -> tuple[int, str | None]:
    """The Gatehouse header set: returns the timestamp and the claimed event id."""
    timestamp = _timestamp(headers, "Gatehouse-Timestamp", tolerance, now)
    signature_text = _header(headers, "Gatehouse-Signature")
    if not signature_text:
        raise SignatureError("missing_signature", "Gatehouse-Signature header is missing")
    candidates = [
        part[3:].lower().encode("ascii")
        for part in signature_text.split()
        if part.startswith("v1=") and _HEX_SHA256.fullmatch(part[3:].lower())
    ]
    if not candidates:
        raise SignatureError("no_v1_signature", "Gatehouse-Signature holds no v1 signature")
    expected = [compute_signature(s, timestamp, body).encode("ascii") for s in held]
    if not _any_match(expected, candidates):
        raise SignatureError("signature_mismatch", "no signature matches a held secret")
    return timestamp, _header(headers, "Gatehouse-Event-Id")


def _standard_candidates(signature_text: str) -> list[bytes]:
    candidates = []
    for part in signature_text.split():
        version, _, value = part.partition(",")
        if version != "v1" or not value or not _BASE64.fullmatch(value):
            continue  # other schemes (v1a: asymmetric) are not ours to check
        try:
            candidates.append(base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError):
            continue
    return candidates


def _check_standard(
    body: bytes, headers: Headers, held: list[str], tolerance: int, now: float | datetime | None
) -> tuple[int, str | None]:
    """The Standard Webhooks header set: returns the timestamp and the signed event id."""
    timestamp = _timestamp(headers, "webhook-timestamp", tolerance, now)
    signature_text = _header(headers, "webhook-signature")
    if not signature_text:
        raise SignatureError("missing_signature", "webhook-signature header is missing")
    candidates = _standard_candidates(signature_text)
    if not candidates:
        raise SignatureError("no_v1_signature", "webhook-signature holds no v1 signature")
    msg_id = _header(headers, "webhook-id")
    if not msg_id:
        raise SignatureError("missing_event_id", "webhook-id header is missing")
    keys = [key for key in (standard_webhooks_key(s) for s in held) if key is not None]
    if not keys:
        raise SignatureError(
            "no_usable_secret",
            "no held secret is base64 after whsec_, so none can check webhook-signature",
        )
    expected = [_standard_digest(key, msg_id, str(timestamp), body) for key in keys]
    if not _any_match(expected, candidates):
        raise SignatureError("signature_mismatch", "no signature matches a held secret")
    return timestamp, msg_id


def _present(headers: Headers, *names: str) -> bool:
    return any(_header(headers, name) is not None for name in names)


def verify(
    raw_body: bytes,
    headers: Headers,
    secrets: str | Iterable[str],
    tolerance: int = DEFAULT_TOLERANCE,
    expected_tenants: Collection[str] | None = None,
    now: float | datetime | None = None,
) -> Event:
    """Verify one webhook delivery and return its event.

    `raw_body` is the exact request body as bytes: never a parsed and
    re-serialized object, never a decoded string. `headers` is a mapping or
    (name, value) pairs; names are matched case-insensitively. `secrets` are
    the endpoint secrets you hold (two during a rotation). `expected_tenants`,
    when given, are the tenantIds this receiver serves. Raises `SignatureError`.

    Which header set is checked: a set is present when its signature header
    is (`Gatehouse-Signature`, `webhook-signature`). **The Gatehouse headers
    are preferred**: when both sets are present only they are verified and the
    Standard Webhooks headers are ignored, because every secret Gatehouse has
    issued verifies them (secrets from before Standard Webhooks need not be
    base64) and they also bind `Gatehouse-Event-Type`. The Standard Webhooks
    set is verified when it is the only one present (a proxy or gateway that
    forwards only those); a secret that is not base64 after `whsec_` cannot
    verify it. `Event.signature_scheme` says which set was checked
    (`"gatehouse"` or `"standard-webhooks"`).
    """
    if not isinstance(raw_body, bytes | bytearray | memoryview):
        raise TypeError("raw_body must be the raw request body as bytes")
    body = bytes(raw_body)
    held = [secrets] if isinstance(secrets, str) else list(secrets)
    if not held or any(not isinstance(s, str) or not s for s in held):
        raise ValueError("at least one nonempty secret is required")

    standard = not _present(headers, "Gatehouse-Signature") and (
        _present(headers, "webhook-signature")
        or (
            not _present(headers, "Gatehouse-Timestamp")
            and _present(headers, "webhook-timestamp", "webhook-id")
        )
    )
    check = _check_standard if standard else _check_gatehouse
    timestamp, claimed_id = check(body, headers, held, tolerance, now)

    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise SignatureError("invalid_body", "the body is not JSON") from None
    if not isinstance(parsed, dict):
        raise SignatureError("invalid_body", "the body is not a JSON object")

    id_header = "webhook-id" if standard else "Gatehouse-Event-Id"
    if not isinstance(parsed.get("id"), str) or claimed_id != parsed["id"]:
        raise SignatureError("event_id_mismatch", f"{id_header} differs from the body id")
    if not isinstance(parsed.get("type"), str):
        raise SignatureError("event_type_mismatch", "the body has no event type")
    if not standard and _header(headers, "Gatehouse-Event-Type") != parsed["type"]:
        raise SignatureError(
            "event_type_mismatch", "Gatehouse-Event-Type differs from the body type"
        )
    if expected_tenants is not None and parsed.get("tenantId") not in set(expected_tenants):
        raise SignatureError("unexpected_tenant", "the event's tenantId is not expected here")

    attempt_text = _header(headers, "Gatehouse-Attempt")
    attempt = int(attempt_text) if attempt_text and attempt_text.strip().isdigit() else None
    return Event.from_json(
        parsed,
        attempt=attempt,
        timestamp=timestamp,
        signature_scheme=STANDARD_WEBHOOKS_HEADERS if standard else GATEHOUSE_HEADERS,
    )
