"""The one rule of who may make which decision from which status (domain/status.py
`allowed_moves`, `refusal`, `decide`), checked exhaustively: every status, role and action, as
the proposer and as anyone else, against the table of docs/reference/staff-api.md §6.3 written
out here on its own."""

from __future__ import annotations

import itertools

import pytest

from gatehouse.domain.status import (
    ACTION_WORDS,
    CaseState,
    MoveNotAllowed,
    NotPermitted,
    allowed_moves,
    decide,
    refusal,
)

STATUSES = ("pending", "needs_info", "hold", "pending_approval", "active", "rejected")
ROLES = ("analyst", "mlro", "admin", "super_admin")
ACTIONS = ("approve", "countersign", "reject_proposal", "reject", "hold", "release")
RANK = {role: rank for rank, role in enumerate(ROLES)}

# docs/reference/staff-api.md §6.3: the least role, and the statuses each action starts from.
LEAST_ROLE = {
    "approve": "analyst",
    "countersign": "mlro",
    "reject_proposal": "mlro",
    "reject": "analyst",
    "hold": "analyst",
    "release": "analyst",
}
FROM = {
    "approve": {"pending", "needs_info", "hold", "active", "rejected"},
    "countersign": {"pending_approval"},
    "reject_proposal": {"pending_approval"},
    "reject": {"pending", "needs_info", "hold", "pending_approval", "active"},
    "hold": {"pending", "needs_info", "pending_approval", "active", "rejected"},
    "release": {"hold"},
}
PROPOSER = "stf_proposer"
OTHER = "stf_other"


def expected(status: str, role: str, action: str, actor: str) -> bool:
    if RANK[role] < RANK[LEAST_ROLE[action]] or status not in FROM[action]:
        return False
    return not (action == "countersign" and actor == PROPOSER)


def state_of(status: str) -> CaseState:
    """A case in `status`; a proposal, when there is one, is PROPOSER's from pending."""
    if status == "pending_approval":
        return CaseState(status, "pending", PROPOSER)
    return CaseState(status)


CASES = list(itertools.product(STATUSES, ROLES, (PROPOSER, OTHER)))


@pytest.mark.parametrize(("status", "role", "actor"), CASES)
def test_allowed_moves_is_the_table(status: str, role: str, actor: str) -> None:
    moves = allowed_moves(state_of(status), actor_id=actor, actor_role=role)
    assert moves == tuple(a for a in ACTIONS if expected(status, role, a, actor))


@pytest.mark.parametrize(("status", "role", "actor"), CASES)
@pytest.mark.parametrize("action", ACTIONS)
def test_decide_enforces_the_same_rule(status: str, role: str, actor: str, action: str) -> None:
    """What the form offers is exactly what the service accepts; a refusal says why with
    the contract's kind: the role first (403), then the state (400), then four eyes (403)."""
    state = state_of(status)
    reason = "Because" if action == "reject" else None
    if expected(status, role, action, actor):
        assert refusal(state, action, actor_id=actor, actor_role=role) is None
        move = decide(state, action, actor_id=actor, actor_role=role, rejection_reason=reason)
        assert move.from_status == status
        return
    if RANK[role] < RANK[LEAST_ROLE[action]]:
        wanted: type[Exception] = NotPermitted
    elif status not in FROM[action]:
        wanted = MoveNotAllowed
    else:
        wanted = NotPermitted  # the proposer countersigning
    assert isinstance(refusal(state, action, actor_id=actor, actor_role=role), wanted)
    with pytest.raises(wanted):
        decide(state, action, actor_id=actor, actor_role=role, rejection_reason=reason)


@pytest.mark.parametrize("action", ACTIONS)
def test_a_role_refusal_says_the_move_in_words_and_the_role_it_needs(action: str) -> None:
    """The dashboard shows refusals as they are: the move in words, never its identifier."""
    state = state_of("pending_approval" if action in ("countersign", "reject_proposal") else "hold")
    refused = refusal(state, action, actor_id=OTHER, actor_role="viewer")
    assert isinstance(refused, NotPermitted)
    assert refused.message.startswith(ACTION_WORDS[action])
    assert f"the {LEAST_ROLE[action]} role or above" in refused.message
    assert action not in refused.message.replace(ACTION_WORDS[action], "")


def test_the_proposer_is_told_a_colleague_must_countersign() -> None:
    refused = refusal(
        state_of("pending_approval"), "countersign", actor_id=PROPOSER, actor_role="mlro"
    )
    assert isinstance(refused, NotPermitted)
    assert refused.message.startswith("You proposed this approval")
    assert "second staff member" in refused.message


def test_an_unknown_role_may_make_no_move() -> None:
    for status in STATUSES:
        assert allowed_moves(state_of(status), actor_id=OTHER, actor_role="viewer") == ()


def test_the_table_offers_every_action_somewhere() -> None:
    """The table is not vacuous: each action is allowed for someone, refused for someone."""
    for action in ACTIONS:
        outcomes = {expected(s, r, action, a) for s, r, a in CASES}
        assert outcomes == {True, False}
