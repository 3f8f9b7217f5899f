"""Opaque, integrity-protected cursors for keyset pagination.

A cursor carries the keyset position and a digest of the filters it was
issued with, MAC'd with a key derived from SECRET_KEY: a tampered cursor, a
foreign one, or one replayed with other filters is refused with 400.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from typing import Any

import orjson

from gatehouse.crypto import Crypto
from gatehouse.http.errors import invalid_argument


def _filters_digest(kind: str, filters: Mapping[str, Any]) -> str:
    canonical = orjson.dumps({"kind": kind, "filters": dict(filters)}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(canonical).hexdigest()[:16]


def encode_cursor(
    crypto: Crypto, kind: str, filters: Mapping[str, Any], position: list[Any]
) -> str:
    payload = orjson.dumps({"f": _filters_digest(kind, filters), "p": position})
    body = base64.urlsafe_b64encode(payload).decode().rstrip("=")
    return f"{body}.{crypto.sign(body.encode())}"


def decode_cursor(crypto: Crypto, kind: str, filters: Mapping[str, Any], cursor: str) -> list[Any]:
    """The keyset position, or 400 invalid-argument for any cursor not issued here."""
    error = invalid_argument(
        "The cursor is not valid for this request.", "cursor", "invalid cursor"
    )
    body, _, signature = cursor.partition(".")
    if not body or not signature or not crypto.verify_signature(body.encode(), signature):
        raise error
    try:
        payload = orjson.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (ValueError, orjson.JSONDecodeError):
        raise error from None
    if not isinstance(payload, dict) or payload.get("f") != _filters_digest(kind, filters):
        raise error
    position = payload.get("p")
    if not isinstance(position, list):
        raise error
    return position
