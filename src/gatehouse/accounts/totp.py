"""Second factors by code: TOTP (RFC 6238: 6 digits, 30 s, SHA-1) and recovery codes
(docs/staff-identity.md "The invite", "Signing in").

A TOTP code is accepted for the time step before, at and after now, and only for a step
later than the last one accepted for the person, so a code works once. Recovery codes are ten
random `xxxxx-xxxxx` codes, shown once and stored as keyed digests; each works once.
"""

from __future__ import annotations

import hmac
import io
import re
import secrets
from datetime import datetime

import pyotp
import segno

ISSUER = "Gatehouse"
DIGITS = 6
INTERVAL = 30
# Steps around now that are accepted: one before and one after (clock drift).
DRIFT_STEPS = 1
RECOVERY_CODES = 10
_RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i
_RECOVERY_RE = re.compile(r"[a-z0-9]{10}")
# ASCII digits only: `\d` also matches other scripts' digits, which no authenticator sends
# (and `hmac.compare_digest` refuses non-ASCII text).
_CODE_RE = re.compile(r"[0-9]{6}")


def new_secret() -> str:
    """A fresh base32 secret of 160 bits (RFC 4226 §4 recommends at least 128)."""
    return pyotp.random_base32(32)


def provisioning_uri(secret: str, email: str) -> str:
    """The `otpauth://` URI an authenticator app reads from the QR code."""
    return pyotp.TOTP(secret, digits=DIGITS, interval=INTERVAL).provisioning_uri(
        name=email, issuer_name=ISSUER
    )


def qr_svg(uri: str) -> str:
    """The QR code of `uri` as inline SVG markup (no XML declaration)."""
    buffer = io.BytesIO()
    segno.make(uri, error="m").save(
        buffer, kind="svg", xmldecl=False, svgns=True, scale=5, title="QR code", svgclass="qr-code"
    )
    return buffer.getvalue().decode()


def grouped(secret: str) -> str:
    """The secret in groups of four, for typing it into an app by hand."""
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


def step_of(moment: datetime) -> int:
    return int(moment.timestamp()) // INTERVAL


def compact_code(code: str) -> str:
    """A code as typed, without its spaces: apps show `123 456`, people type what they see."""
    return "".join(code.split())


def looks_like_totp(code: str) -> bool:
    return _CODE_RE.fullmatch(code) is not None


def matching_step(secret: str, code: str, moment: datetime, last_step: int | None) -> int | None:
    """The time step `code` belongs to, when it is valid at `moment` and newer than
    `last_step`; None otherwise."""
    if not looks_like_totp(code):
        return None
    totp = pyotp.TOTP(secret, digits=DIGITS, interval=INTERVAL)
    now = step_of(moment)
    found: int | None = None
    for step in range(now - DRIFT_STEPS, now + DRIFT_STEPS + 1):
        expected = totp.generate_otp(step)
        # Compare every candidate: the time taken does not depend on which one matched.
        if hmac.compare_digest(expected, code) and found is None:
            found = step
    if found is None or (last_step is not None and found <= last_step):
        return None
    return found


def new_recovery_codes() -> list[str]:
    codes = []
    for _ in range(RECOVERY_CODES):
        raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(10))
        codes.append(f"{raw[:5]}-{raw[5:]}")
    return codes


def normalize_recovery_code(code: str) -> str | None:
    """`ABCDE-FGHJK`, `abcde fghjk` and `abcdefghjk` are one code; None for other shapes."""
    cleaned = code.strip().lower().replace("-", "").replace(" ", "")
    return cleaned if _RECOVERY_RE.fullmatch(cleaned) else None


def recovery_digest_input(staff_id: str, normalized: str) -> str:
    """What is hashed for a recovery code: bound to its owner, so equal codes differ."""
    return f"recovery:{staff_id}:{normalized}"
