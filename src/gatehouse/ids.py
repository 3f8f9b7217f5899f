"""Opaque identifiers with a readable prefix (CONTRACT §1.1)."""

from __future__ import annotations

import secrets
import time

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def _base36(number: int, width: int) -> str:
    out = []
    for _ in range(width):
        number, rem = divmod(number, 36)
        out.append(_ALPHABET[rem])
    return "".join(reversed(out))


def new_id(prefix: str) -> str:
    """`<prefix>_` + 9 time-ordered characters + 16 random ones.

    The time part keeps ids roughly ordered by creation, which keeps btree
    indexes compact; the random part makes them unguessable.
    """
    millis = int(time.time() * 1000)
    random_part = "".join(secrets.choice(_ALPHABET) for _ in range(16))
    return f"{prefix}_{_base36(millis, 9)}{random_part}"


def random_token(length: int = 40) -> str:
    """A URL-safe alphanumeric secret."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "".join(secrets.choice(alphabet) for _ in range(length))
