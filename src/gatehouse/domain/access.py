"""Which tenant writes an application's state allows (docs/reference/tenant-api.md §3.2, §5;
docs/reference/tenant-api.md).

- An erased application refuses every write with 410, except member
  removal, which fails validation with 400 (erasure cleared the roster).
- A suspended tenant may only lock and remove members; unlock is refused
  even when repeated.
- A locked application refuses new sign-in links, new members and repeated
  provisioning; lock, unlock and member removal stay available.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class Operation(StrEnum):
    PROVISION = "provision"
    MINT_LINK = "mint_link"
    ADD_MEMBER = "add_member"
    REMOVE_MEMBER = "remove_member"
    LOCK = "lock"
    UNLOCK = "unlock"


class Refusal(StrEnum):
    ERASED = "erased"  # 410 failed-precondition
    ERASED_ROSTER = "erased_roster"  # 400 failed-precondition
    SUSPENDED = "suspended"  # 403 permission-denied
    LOCKED = "locked"  # 403 permission-denied


ALLOWED_WHILE_SUSPENDED = frozenset({Operation.LOCK, Operation.REMOVE_MEMBER})
ALLOWED_WHILE_LOCKED = frozenset({Operation.LOCK, Operation.UNLOCK, Operation.REMOVE_MEMBER})

ACCESS_LOCKED: Literal["locked"] = "locked"
ACCESS_UNLOCKED: Literal["unlocked"] = "unlocked"


def refusal_for(
    operation: Operation, *, tenant_suspended: bool, locked: bool, erased: bool
) -> Refusal | None:
    """The reason `operation` is refused, checked as erased, suspended, locked; or None."""
    if erased:
        return Refusal.ERASED_ROSTER if operation is Operation.REMOVE_MEMBER else Refusal.ERASED
    if tenant_suspended and operation not in ALLOWED_WHILE_SUSPENDED:
        return Refusal.SUSPENDED
    if locked and operation not in ALLOWED_WHILE_LOCKED:
        return Refusal.LOCKED
    return None


def access_state(locked: bool) -> Literal["locked", "unlocked"]:
    """`locked` or `unlocked`, as the lock and unlock routes answer
    (docs/reference/tenant-api.md §5).
    """
    return ACCESS_LOCKED if locked else ACCESS_UNLOCKED
