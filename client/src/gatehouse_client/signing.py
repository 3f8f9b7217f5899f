"""Webhook signature verification (spec 2 §5; CONTRACT §2.3).

`verify` does every check of spec 2 §5 in order: raw bytes only, an integer
`Gatehouse-Timestamp` within the tolerance, one of the `v1=` signatures of
`Gatehouse-Signature` matching HMAC-SHA256(secret, "<timestamp>.<raw body>")
for any held secret (compared in constant time), then the body's `id` and
`type` equal to the `Gatehouse-Event-Id` and `Gatehouse-Event-Type` headers,
and its `tenantId` one of the expected tenants.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Collection, Iterable, Mapping
from datetime import datetime

from gatehouse_client.events import Event

__all__ = [
    "DEFAULT_TOLERANCE",
    "SignatureError",
    "compute_signature",
    "signature_header",
    "verify",
]

DEFAULT_TOLERANCE = 300

_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_HEX_SHA256 = re.compile(r"[0-9a-f]{64}")


class SignatureError(Exception):
    """A delivery that must not be trusted; answer it with a 4xx (400 or 401).

    `reason` is one of: `missing_timestamp`, `invalid_timestamp`,
    `timestamp_out_of_tolerance`, `missing_signature`, `no_v1_signature`,
    `signature_mismatch`, `invalid_body`, `event_id_mismatch`,
    `event_type_mismatch`, `unexpected_tenant`.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def compute_signature(secret: str, timestamp: int | str, raw_body: bytes) -> str:
    """Lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`, the secret used as-is (UTF-8)."""
    message = str(timestamp).encode("ascii") + b"." + bytes(raw_body)
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def signature_header(secrets: Iterable[str], timestamp: int | str, raw_body: bytes) -> str:
    """A `Gatehouse-Signature` value: `v1=<hex>` per secret, space separated."""
    return " ".join(f"v1={compute_signature(s, timestamp, raw_body)}" for s in secrets)


def _header(headers: Mapping[str, str] | Iterable[tuple[str, str]], name: str) -> str | None:
    """Case-insensitive header lookup over a mapping or (name, value) pairs."""
    wanted = name.lower()
    items: Iterable[tuple[str, str]]
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


def verify(
    raw_body: bytes,
    headers: Mapping[str, str] | Iterable[tuple[str, str]],
    secrets: str | Iterable[str],
    tolerance: int = DEFAULT_TOLERANCE,
    expected_tenants: Collection[str] | None = None,
    now: float | datetime | None = None,
) -> Event:
    """Verify one webhook delivery and return its event (spec 2 §5).

    `raw_body` is the exact request body as bytes: never a parsed and
    re-serialized object, never a decoded string. `secrets` are the endpoint
    secrets you hold (two during a rotation). `expected_tenants`, when given,
    are the tenantIds this receiver serves. Raises `SignatureError`.
    """
    if not isinstance(raw_body, bytes | bytearray | memoryview):
        raise TypeError("raw_body must be the raw request body as bytes")
    body = bytes(raw_body)
    held = [secrets] if isinstance(secrets, str) else list(secrets)
    if not held or any(not isinstance(s, str) or not s for s in held):
        raise ValueError("at least one nonempty secret is required")

    timestamp_text = _header(headers, "Gatehouse-Timestamp")
    if timestamp_text is None:
        raise SignatureError("missing_timestamp", "Gatehouse-Timestamp header is missing")
    timestamp_text = timestamp_text.strip()
    if not _TIMESTAMP.fullmatch(timestamp_text):
        raise SignatureError("invalid_timestamp", "Gatehouse-Timestamp is not integer seconds")
    timestamp = int(timestamp_text)
    if abs(_now_seconds(now) - timestamp) > tolerance:
        raise SignatureError(
            "timestamp_out_of_tolerance", f"Gatehouse-Timestamp is more than {tolerance}s away"
        )

    signature_text = _header(headers, "Gatehouse-Signature")
    if not signature_text:
        raise SignatureError("missing_signature", "Gatehouse-Signature header is missing")
    candidates = [
        part[3:].lower()
        for part in signature_text.split()
        if part.startswith("v1=") and _HEX_SHA256.fullmatch(part[3:].lower())
    ]
    if not candidates:
        raise SignatureError("no_v1_signature", "Gatehouse-Signature holds no v1 signature")
    matched = False
    for secret in held:
        expected = compute_signature(secret, timestamp, body).encode("ascii")
        for candidate in candidates:
            # Every pair is compared, so timing does not tell which one matched.
            matched |= hmac.compare_digest(expected, candidate.encode("ascii"))
    if not matched:
        raise SignatureError("signature_mismatch", "no signature matches a held secret")

    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise SignatureError("invalid_body", "the body is not JSON") from None
    if not isinstance(parsed, dict):
        raise SignatureError("invalid_body", "the body is not a JSON object")

    event_id = _header(headers, "Gatehouse-Event-Id")
    if not isinstance(parsed.get("id"), str) or event_id != parsed["id"]:
        raise SignatureError("event_id_mismatch", "Gatehouse-Event-Id differs from the body id")
    event_type = _header(headers, "Gatehouse-Event-Type")
    if not isinstance(parsed.get("type"), str) or event_type != parsed["type"]:
        raise SignatureError(
            "event_type_mismatch", "Gatehouse-Event-Type differs from the body type"
        )
    if expected_tenants is not None and parsed.get("tenantId") not in set(expected_tenants):
        raise SignatureError("unexpected_tenant", "the event's tenantId is not expected here")

    attempt_text = _header(headers, "Gatehouse-Attempt")
    attempt = int(attempt_text) if attempt_text and attempt_text.strip().isdigit() else None
    return Event.from_json(parsed, attempt=attempt, timestamp=timestamp)
