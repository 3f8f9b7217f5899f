"""Opaque identifiers with a readable prefix (docs/reference/README.md §2.1)."""

from __future__ import annotations

import secrets
import time

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
_RANDOM_SPACE = 36**16
# The characters tokens are drawn from (not a secret).
_TOKEN_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"  # noqa: S105


# Every two-character base-36 string, so that a number is written two digits at a time.
_PAIRS = [a + b for a in _ALPHABET for b in _ALPHABET]


def _base36(number: int, width: int) -> str:
    """The last `width` base-36 digits of `number`, zero-padded."""
    out = []
    for _ in range(width // 2):
        number, rem = divmod(number, 1296)
        out.append(_PAIRS[rem])
    if width % 2:
        out.append(_ALPHABET[number % 36])
    return "".join(reversed(out))


def new_id(prefix: str) -> str:
    """`<prefix>_` + 9 time-ordered characters + 16 random ones.

    The time part keeps ids roughly ordered by creation, which keeps btree
    indexes compact; the random part makes them unguessable.
    """
    millis = int(time.time() * 1000)
    # One draw from the OS generator, not 16 (every request makes a request id).
    return f"{prefix}_{_base36(millis, 9)}{_base36(secrets.randbelow(_RANDOM_SPACE), 16)}"


def random_token(length: int = 40) -> str:
    """A URL-safe alphanumeric secret."""
    # One uniform draw below 62**length, written in base 62 (not one draw per character).
    number = secrets.randbelow(len(_TOKEN_ALPHABET) ** length)
    out = []
    for _ in range(length):
        number, rem = divmod(number, len(_TOKEN_ALPHABET))
        out.append(_TOKEN_ALPHABET[rem])
    return "".join(out)
