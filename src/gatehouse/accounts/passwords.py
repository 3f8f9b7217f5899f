"""Staff passwords: the policy, and argon2id hashing (docs/staff-identity.md "The invite").

A password has at least 12 characters (at most 256) and is refused when it is common: found in
zxcvbn's list of frequent passwords, or guessable by zxcvbn's estimator (score below 3) with
the person's email as a hint. Hashes are argon2id (pwdlib's recommended parameters); hashing
and checking run in a worker thread, so a sign-in does not stall the event loop.
"""

from __future__ import annotations

import asyncio
from functools import lru_cache

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from gatehouse.errors import invalid_argument

MIN_LENGTH = 12
MAX_LENGTH = 256
# zxcvbn's matching grows quickly with length; the first characters decide the score.
_ESTIMATE_PREFIX = 64
_MIN_SCORE = 3

_HASHER = PasswordHash((Argon2Hasher(),))


@lru_cache(maxsize=1)
def _common_passwords() -> frozenset[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    return frozenset(FREQUENCY_LISTS["passwords"])


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    # Checked against when no account matches, so every failure costs one argon2 run.
    return _HASHER.hash("gatehouse: no such account")


def password_problem(password: str, email: str | None = None) -> str | None:
    """Why `password` is refused, in words for the form; None when it is acceptable."""
    if len(password) < MIN_LENGTH:
        return f"Use at least {MIN_LENGTH} characters."
    if len(password) > MAX_LENGTH:
        return f"Use at most {MAX_LENGTH} characters."
    if password.lower() in _common_passwords():
        return "This password is too common. Choose another."
    from zxcvbn import zxcvbn

    hints = [part for part in (email or "").replace("@", " ").replace(".", " ").split() if part]
    estimate = zxcvbn(password[:_ESTIMATE_PREFIX], user_inputs=hints)
    if int(estimate["score"]) < _MIN_SCORE:
        return "This password is too easy to guess. Try a longer phrase of unrelated words."
    return None


def check_password(password: object, email: str | None = None, field: str = "password") -> str:
    """The password, or 400 invalid-argument naming `field`."""
    if not isinstance(password, str) or not password:
        raise invalid_argument("Enter a password.", field, "required")
    problem = password_problem(password, email)
    if problem is not None:
        raise invalid_argument(problem, field, problem)
    return password


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(_HASHER.hash, password)


async def verify_password(password: str, stored: str | None) -> bool:
    """Whether `password` matches `stored`; with no stored hash the same work is spent."""
    if stored is None:
        await asyncio.to_thread(_HASHER.verify, password, _dummy_hash())
        return False
    try:
        return await asyncio.to_thread(_HASHER.verify, password, stored)
    except Exception:  # a malformed stored hash is a failed check, never a crash
        return False
