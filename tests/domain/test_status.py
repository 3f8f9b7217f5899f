"""The status machine of docs/reference/tenant-api.md §3.1 and docs/reference/staff-api.md
"Decision actions", §6: no database.
"""

from __future__ import annotations

import pytest

from gatehouse.domain import events
from gatehouse.domain.decisions import plan_decision
from gatehouse.domain.status import (
    STATUSES,
    CaseState,
    InvalidInput,
    MoveNotAllowed,
    NotPermitted,
    after_info_request_raised,
    after_request_responded,
    decide,
)
from gatehouse.timeutil import utcnow


@pytest.mark.parametrize("status", [s for s in STATUSES if s != "pending_approval"])
def test_approve_proposes_from_every_status_but_pending_approval(status: str) -> None:
    move = decide(CaseState(status), "approve", actor_id="stf_a", actor_role="analyst")
    assert move.to_status == "pending_approval"
    assert move.history_action == "approve"
    assert move.event_type == "application.decision.proposed"
    assert move.status_before_proposal == status
    assert move.proposed_by == "stf_a"


def test_approve_while_pending_approval_is_refused() -> None:
    with pytest.raises(MoveNotAllowed):
        decide(
            CaseState("pending_approval", "pending", "stf_a"),
            "approve",
            actor_id="stf_b",
            actor_role="mlro",
        )


def test_countersign_by_another_mlro_activates() -> None:
    state = CaseState("pending_approval", "hold", "stf_a")
    move = decide(state, "countersign", actor_id="stf_b", actor_role="mlro")
    assert (move.from_status, move.to_status) == ("pending_approval", "active")
    assert move.history_action == "approved"
    assert move.event_type == "application.decision.approved"
    assert move.proposed_by is None
    assert move.status_before_proposal is None


def test_countersign_by_the_proposer_is_permission_denied() -> None:
    state = CaseState("pending_approval", "pending", "stf_a")
    with pytest.raises(NotPermitted):
        decide(state, "countersign", actor_id="stf_a", actor_role="super_admin")


def test_countersign_needs_mlro() -> None:
    state = CaseState("pending_approval", "pending", "stf_a")
    with pytest.raises(NotPermitted):
        decide(state, "countersign", actor_id="stf_b", actor_role="analyst")


@pytest.mark.parametrize("status", [s for s in STATUSES if s != "pending_approval"])
def test_countersign_outside_pending_approval_is_failed_precondition(status: str) -> None:
    with pytest.raises(MoveNotAllowed):
        decide(CaseState(status), "countersign", actor_id="stf_b", actor_role="mlro")


def test_reject_proposal_returns_to_the_status_before_the_proposal() -> None:
    state = CaseState("pending_approval", "needs_info", "stf_a")
    move = decide(state, "reject_proposal", actor_id="stf_b", actor_role="mlro")
    assert move.to_status == "needs_info"
    assert move.history_action == "proposal_rejected"
    assert move.event_type == "application.decision.proposal_rejected"


def test_reject_proposal_needs_mlro_and_a_proposal() -> None:
    with pytest.raises(NotPermitted):
        decide(
            CaseState("pending_approval", "pending", "x"),
            "reject_proposal",
            actor_id="stf_b",
            actor_role="analyst",
        )
    with pytest.raises(MoveNotAllowed):
        decide(CaseState("pending"), "reject_proposal", actor_id="stf_b", actor_role="mlro")


def test_reject_needs_a_reason() -> None:
    with pytest.raises(InvalidInput) as caught:
        decide(CaseState("pending"), "reject", actor_id="s", actor_role="analyst")
    assert caught.value.field == "rejectionReason"
    with pytest.raises(InvalidInput):
        decide(
            CaseState("pending"),
            "reject",
            actor_id="s",
            actor_role="analyst",
            rejection_reason="   ",
        )
    move = decide(
        CaseState("hold"),
        "reject",
        actor_id="s",
        actor_role="analyst",
        rejection_reason=" Sanctions match ",
    )
    assert move.to_status == "rejected"
    assert move.rejection_reason == "Sanctions match"
    assert move.history_action == "reject"


def test_reject_twice_is_refused() -> None:
    with pytest.raises(MoveNotAllowed):
        decide(
            CaseState("rejected"),
            "reject",
            actor_id="s",
            actor_role="analyst",
            rejection_reason="again",
        )


def test_hold_and_release() -> None:
    hold = decide(CaseState("needs_info"), "hold", actor_id="s", actor_role="analyst")
    assert hold.to_status == "hold"
    assert hold.event_type == "application.decision.hold"
    with pytest.raises(MoveNotAllowed):
        decide(CaseState("hold"), "hold", actor_id="s", actor_role="analyst")
    release = decide(CaseState("hold"), "release", actor_id="s", actor_role="analyst")
    assert release.to_status == "pending"
    assert release.event_type is None  # only application.status.changed
    with pytest.raises(MoveNotAllowed):
        decide(CaseState("pending"), "release", actor_id="s", actor_role="analyst")


def test_unknown_action_is_invalid_input() -> None:
    with pytest.raises(InvalidInput) as caught:
        decide(CaseState("pending"), "approved", actor_id="s", actor_role="super_admin")
    assert caught.value.field == "action"
    assert caught.value.message.startswith("Choose one of the decisions")


def test_overlong_comment_and_rejection_reason_are_refused_in_words() -> None:
    """The dashboard shows these messages beside its fields: words, not the API's names."""
    for comment, reason, field, words in (
        ("x" * 4001, None, "comment", "The comment can be at most 4000 characters"),
        (None, "x" * 2001, "rejectionReason", "The rejection reason can be at most 2000"),
    ):
        with pytest.raises(InvalidInput) as caught:
            plan_decision(
                CaseState("pending"),
                "reject",
                actor_id="s",
                actor_role="analyst",
                comment=comment,
                rejection_reason=reason,
                at=utcnow(),
            )
        assert caught.value.field == field
        assert caught.value.message.startswith(words)
        assert "rejectionReason" not in caught.value.message
        assert "must be" not in caught.value.message


def test_plan_decision_writes_the_history_entry() -> None:
    at = utcnow()
    move, entry = plan_decision(
        CaseState("pending"),
        "approve",
        actor_id="stf_a",
        actor_role="analyst",
        comment="  Looks fine  ",
        rejection_reason=None,
        at=at,
    )
    assert (entry.action, entry.from_status, entry.to_status) == (
        "approve",
        "pending",
        "pending_approval",
    )
    assert entry.by_role == "analyst"
    assert entry.comment == "Looks fine"
    assert entry.at == at
    _, blank = plan_decision(
        CaseState("pending"),
        "hold",
        actor_id="s",
        actor_role="analyst",
        comment="  ",
        rejection_reason=None,
        at=at,
    )
    assert blank.comment is None
    assert move.status_changed


def test_information_request_and_response_moves() -> None:
    for status in STATUSES:
        assert after_info_request_raised(status) == "needs_info"
    assert after_request_responded("needs_info", 0) == "pending"
    assert after_request_responded("needs_info", 1) == "needs_info"
    assert after_request_responded("hold", 0) == "hold"


def test_decision_event_data() -> None:
    data = events.decision(
        "application.decision.rejected",
        status="rejected",
        previous_status="pending",
        actor_role="mlro",
        comment=None,
        rejection_reason="Fraud",
    )
    assert data == {
        "status": "rejected",
        "previousStatus": "pending",
        "action": "reject",
        "actorRole": "mlro",
        "comment": None,
        "rejectionReason": "Fraud",
    }
    approved = events.decision(
        "application.decision.approved",
        status="active",
        previous_status="pending_approval",
        actor_role="mlro",
        comment="ok",
    )
    assert approved["action"] == "approved"
    assert "rejectionReason" not in approved
    assert events.submitted("pending") == {"status": "pending", "previousStatus": None}
    assert events.status_changed("pending", "needs_info", "info_request") == {
        "status": "pending",
        "previousStatus": "needs_info",
        "reason": "info_request",
    }
