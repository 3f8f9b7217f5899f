"""Response shape of erasure (docs/reference/staff-api.md §6.7)."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict


class Erased(TypedDict):
    """`POST /staff/v1/applications/{clientId}/erase`."""

    clientId: str
    erased: Literal[True]
