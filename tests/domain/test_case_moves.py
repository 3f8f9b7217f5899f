"""The moves the case page offers (domain/case_moves.py), per role and state: the status
machine's table, the screening guard rail on proposing and countersigning, four eyes, the roles
of the other case actions, and the reasons given for what is withheld."""

from __future__ import annotations

import itertools

import pytest

from gatehouse.domain.case_moves import NO_MOVES, case_moves, screening_refusal
from gatehouse.domain.status import (
    PROPOSER_COUNTERSIGNING,
    CaseState,
    MoveNotAllowed,
    allowed_moves,
)

STATUSES = ("pending", "needs_info", "hold", "pending_approval", "active", "rejected")
ROLES = ("analyst", "mlro", "admin", "super_admin")
PROPOSER = "stf_proposer"
OTHER = "stf_other"


def state_of(status: str) -> CaseState:
    if status == "pending_approval":
        return CaseState(status, "pending", PROPOSER)
    return CaseState(status)


@pytest.mark.parametrize(
    ("status", "role", "actor", "hits"),
    list(itertools.product(STATUSES, ROLES, (PROPOSER, OTHER), (0, 2))),
)
def test_the_offered_decisions_are_the_machines_less_what_a_hit_blocks(
    status: str, role: str, actor: str, hits: int
) -> None:
    state = state_of(status)
    moves = case_moves(state, actor_id=actor, actor_role=role, open_hits=hits, erased=False)
    machine = allowed_moves(state, actor_id=actor, actor_role=role)
    blocked = {"approve", "countersign"} if hits else set()
    assert moves.decisions == tuple(a for a in machine if a not in blocked)
    # Nothing is both offered and withheld; a withheld move is one the state allows someone.
    withheld = {w.action for w in moves.withheld}
    assert not withheld & set(moves.decisions)
    everyone = allowed_moves(state, actor_id="", actor_role="super_admin")
    assert withheld <= set(everyone)
    assert set(moves.decisions) | withheld == set(everyone)


def test_an_open_hit_blocks_proposing_and_says_so() -> None:
    moves = case_moves(
        CaseState("pending"), actor_id=OTHER, actor_role="analyst", open_hits=1, erased=False
    )
    assert moves.decisions == ("reject", "hold")
    assert [(w.action, w.reason) for w in moves.withheld] == [
        ("approve", "The application has 1 open screening hit: resolve them before approving.")
    ]


def test_an_open_hit_blocks_countersigning() -> None:
    moves = case_moves(
        state_of("pending_approval"), actor_id=OTHER, actor_role="mlro", open_hits=3, erased=False
    )
    assert "countersign" not in moves.decisions
    assert "reject_proposal" in moves.decisions  # turning it down stays possible
    reasons = {w.action: w.reason for w in moves.withheld}
    assert reasons == {"countersign": screening_refusal("countersign", 3).message}  # type: ignore[union-attr]
    assert "3 open screening hits" in reasons["countersign"]


@pytest.mark.parametrize("role", ["mlro", "admin", "super_admin"])
def test_the_proposer_is_told_of_four_eyes_whatever_the_role(role: str) -> None:
    moves = case_moves(
        state_of("pending_approval"), actor_id=PROPOSER, actor_role=role, open_hits=0, erased=False
    )
    assert "countersign" not in moves.decisions
    assert {w.action: w.reason for w in moves.withheld}["countersign"] == PROPOSER_COUNTERSIGNING


def test_an_analyst_is_told_countersigning_needs_an_mlro() -> None:
    moves = case_moves(
        state_of("pending_approval"),
        actor_id=OTHER,
        actor_role="analyst",
        open_hits=0,
        erased=False,
    )
    assert moves.decisions == ("reject", "hold")
    reasons = {w.action: w.reason for w in moves.withheld}
    assert set(reasons) == {"countersign", "reject_proposal"}
    assert "mlro role" in reasons["countersign"]


def test_nothing_is_withheld_that_the_state_rules_out() -> None:
    moves = case_moves(
        CaseState("pending"), actor_id=OTHER, actor_role="analyst", open_hits=0, erased=False
    )
    assert moves.decisions == ("approve", "reject", "hold")
    assert moves.withheld == ()


@pytest.mark.parametrize(
    ("role", "records", "change_intake", "check_status", "erase"),
    [
        ("analyst", False, False, False, False),
        ("mlro", True, True, False, False),
        ("admin", True, True, True, True),
        ("super_admin", True, True, True, True),
    ],
)
def test_the_other_case_actions_follow_the_role(
    role: str, records: bool, change_intake: bool, check_status: bool, erase: bool
) -> None:
    moves = case_moves(
        CaseState("pending"), actor_id=OTHER, actor_role=role, open_hits=0, erased=False
    )
    assert (moves.records, moves.change_intake, moves.check_status, moves.erase) == (
        records,
        change_intake,
        check_status,
        erase,
    )
    assert moves.review
    assert moves.request_information
    assert moves.note
    assert moves.assign


@pytest.mark.parametrize("status", ["active", "rejected"])
def test_a_decided_case_keeps_its_intake(status: str) -> None:
    moves = case_moves(
        CaseState(status), actor_id=OTHER, actor_role="admin", open_hits=0, erased=False
    )
    assert not moves.change_intake


@pytest.mark.parametrize("role", ROLES)
def test_an_erased_case_offers_nothing(role: str) -> None:
    moves = case_moves(
        CaseState("pending"), actor_id=OTHER, actor_role=role, open_hits=0, erased=True
    )
    assert moves == NO_MOVES
    assert not any(moves.actions().values())


@pytest.mark.parametrize("action", ["reject_proposal", "reject", "hold", "release"])
def test_hits_block_only_approvals(action: str) -> None:
    assert screening_refusal(action, 5) is None
    assert screening_refusal("approve", 0) is None
    assert isinstance(screening_refusal("approve", 1), MoveNotAllowed)
