"""The queue's work states (docs/workstation.md "Work states"): the rule, case by case."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gatehouse.domain.principals import StaffPrincipal
from gatehouse.domain.work_state import (
    RULES,
    WORK_STATES,
    CaseFacts,
    Reviewer,
    WorkState,
    state_words,
    work_state,
)
from gatehouse.domain.workstation import QUEUE_SORTS, SORT_FLIPPED

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
MLRO = Reviewer("stf_mlro", may_countersign=True)
ANALYST = Reviewer("stf_analyst", may_countersign=False)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


@pytest.mark.parametrize(
    ("case", "state"),
    [
        # Created, the applicant typing a draft: nobody's work yet.
        (CaseFacts("pending"), WorkState.NEVER_SUBMITTED),
        (CaseFacts("pending", applicant_input_at=at(5)), WorkState.NEVER_SUBMITTED),
        # Submitted, no staff act since: staff acting before the submission does not count.
        (CaseFacts("pending", submitted_at=at(10)), WorkState.SUBMITTED),
        (CaseFacts("pending", submitted_at=at(10), staff_acted_at=at(9)), WorkState.SUBMITTED),
        (
            CaseFacts("pending", at(10), staff_acted_at=at(9), applicant_input_at=at(10)),
            WorkState.SUBMITTED,
        ),
        # Staff acted since; nothing new: in review.
        (CaseFacts("pending", submitted_at=at(10), staff_acted_at=at(10)), WorkState.IN_REVIEW),
        (
            CaseFacts("pending", at(10), staff_acted_at=at(20), applicant_input_at=at(15)),
            WorkState.IN_REVIEW,
        ),
        # The applicant answered (or changed answers) after staff last acted.
        (
            CaseFacts("pending", at(10), staff_acted_at=at(20), applicant_input_at=at(21)),
            WorkState.NEW_ANSWERS,
        ),
        # Answers to a request raised before any submission are new answers too.
        (
            CaseFacts("pending", None, staff_acted_at=at(20), applicant_input_at=at(21)),
            WorkState.NEW_ANSWERS,
        ),
        (CaseFacts("pending", None, staff_acted_at=at(20)), WorkState.NEVER_SUBMITTED),
        # Status decides the rest, whatever the trail says.
        (CaseFacts("needs_info", at(10), applicant_input_at=at(30)), WorkState.WAITING_APPLICANT),
        (CaseFacts("hold", at(10)), WorkState.ON_HOLD),
        (CaseFacts("active", at(10)), WorkState.DECIDED),
        (CaseFacts("rejected"), WorkState.DECIDED),
    ],
)
def test_the_state_of_a_case(case: CaseFacts, state: WorkState) -> None:
    assert work_state(case, MLRO) is state
    assert work_state(case, ANALYST) is state


def test_the_countersignature_is_awaited_from_whoever_may_give_it() -> None:
    proposed = CaseFacts("pending_approval", at(10), proposed_by="stf_other")
    assert work_state(proposed, MLRO) is WorkState.COUNTERSIGN
    # An analyst cannot countersign; the proposer never countersigns their own proposal.
    assert work_state(proposed, ANALYST) is WorkState.PROPOSED
    own = CaseFacts("pending_approval", at(10), proposed_by=MLRO.staff_id)
    assert work_state(own, MLRO) is WorkState.PROPOSED
    # A proposal whose proposer is not recorded is someone else's.
    assert work_state(CaseFacts("pending_approval"), MLRO) is WorkState.COUNTERSIGN


def test_the_reviewer_of_a_principal_follows_the_countersign_role() -> None:
    assert Reviewer.of(StaffPrincipal("s1", "a@x.test", "analyst")).may_countersign is False
    assert Reviewer.of(StaffPrincipal("s2", "m@x.test", "mlro")).may_countersign is True
    assert Reviewer.of(StaffPrincipal("s3", "s@x.test", "super_admin")) == Reviewer("s3", True)


def test_every_state_has_words_and_a_rule() -> None:
    assert set(WORK_STATES) == {state.value for state in WorkState}
    assert {rule.state for rule in RULES} == set(WorkState)
    assert state_words("new_answers") == "New answers"
    assert state_words("nonsense") == "nonsense"
    # The table ends with a rule that always holds.
    assert not RULES[-1].statuses
    assert not RULES[-1].facts


def test_every_sort_turns_round_to_its_opposite() -> None:
    for name, (key, first) in QUEUE_SORTS.items():
        other = SORT_FLIPPED[name]
        assert QUEUE_SORTS[other] == (key, not first)
        assert SORT_FLIPPED[other] == name
