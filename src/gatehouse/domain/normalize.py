"""Normalisation rules of docs/reference/tenant-api.md §5.1 shared by every surface
(docs/reference/tenant-api.md §2.1 rule 4).
"""

from __future__ import annotations

MAX_EMAIL = 320
MAX_TEXT = 200


def normalize_email(value: object) -> str | None:
    """Trimmed and lowercased; None unless it contains `@` and fits 320 characters."""
    if not isinstance(value, str):
        return None
    email = value.strip().lower()
    if "@" not in email or len(email) > MAX_EMAIL:
        return None
    return email


def cut_text(value: str | None) -> str | None:
    """Trimmed and cut to 200 characters (externalRef, companyName)."""
    if value is None:
        return None
    return value.strip()[:MAX_TEXT]
