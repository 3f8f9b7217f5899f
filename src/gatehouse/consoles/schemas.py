"""Response shapes of the tenant console's API routes (docs/reference/tenant-api.md §5.16)."""

from __future__ import annotations

from typing_extensions import TypedDict


class ConsoleLinkView(TypedDict):
    """A single-use console link, valid 10 minutes."""

    url: str
    expiresAt: str
