"""Access checks of tenant writes (docs/reference/tenant-api.md §3.2, §5;
docs/reference/tenant-api.md).
"""

from __future__ import annotations

import pytest

from gatehouse.domain.access import Operation, Refusal, access_state, refusal_for

ALL = list(Operation)


@pytest.mark.parametrize("operation", ALL)
def test_nothing_refused_in_the_normal_state(operation: Operation) -> None:
    assert refusal_for(operation, tenant_suspended=False, locked=False, erased=False) is None


@pytest.mark.parametrize("operation", ALL)
def test_erased_refuses_every_write(operation: Operation) -> None:
    refusal = refusal_for(operation, tenant_suspended=True, locked=True, erased=True)
    expected = Refusal.ERASED_ROSTER if operation is Operation.REMOVE_MEMBER else Refusal.ERASED
    assert refusal is expected


def test_suspension_allows_only_lock_and_member_removal() -> None:
    allowed = {
        op
        for op in ALL
        if refusal_for(op, tenant_suspended=True, locked=False, erased=False) is None
    }
    assert allowed == {Operation.LOCK, Operation.REMOVE_MEMBER}
    assert (
        refusal_for(Operation.UNLOCK, tenant_suspended=True, locked=True, erased=False)
        is Refusal.SUSPENDED
    )


def test_lock_refuses_links_members_and_repeat_provisioning() -> None:
    refused = {
        op
        for op in ALL
        if refusal_for(op, tenant_suspended=False, locked=True, erased=False) is Refusal.LOCKED
    }
    assert refused == {Operation.PROVISION, Operation.MINT_LINK, Operation.ADD_MEMBER}


def test_access_state_names() -> None:
    assert access_state(True) == "locked"
    assert access_state(False) == "unlocked"
