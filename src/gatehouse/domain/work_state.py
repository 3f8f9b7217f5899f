"""Where a case's work is, for the reviewer looking at the queue (docs/workstation.md
"Work states"): a pure rule over a case's facts and the reviewer, written once as an ordered
table. `work_state` reads the table in Python; the queue's SQL (cases/queue_states.py) compiles
the same table into one CASE expression, so the counts, the filter and the rows agree.

The facts come from what is stored: the status, `submittedAt`, the proposer, and the audit
trail's last staff act and last applicant input on the case (`STAFF_NOT_ACTING` and
`APPLICANT_INPUTS` say which entries count).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from gatehouse.domain.principals import StaffPrincipal
from gatehouse.domain.status import (
    ACTIVE,
    COUNTERSIGN,
    HOLD,
    NEEDS_INFO,
    PENDING_APPROVAL,
    REJECTED,
    REQUIRED_ROLE,
)


class WorkState(StrEnum):
    """A case's work state, as the queue's `state` filter names it."""

    SUBMITTED = "submitted"
    NEW_ANSWERS = "new_answers"
    COUNTERSIGN = "countersign"
    IN_REVIEW = "in_review"
    NEVER_SUBMITTED = "never_submitted"
    WAITING_APPLICANT = "waiting_applicant"
    PROPOSED = "proposed"
    ON_HOLD = "on_hold"
    DECIDED = "decided"


# The states in the staff's words, in the order the queue lists them (the work first).
STATE_WORDS: dict[WorkState, str] = {
    WorkState.SUBMITTED: "Submitted, not yet reviewed",
    WorkState.NEW_ANSWERS: "New answers",
    WorkState.COUNTERSIGN: "Awaiting your countersignature",
    WorkState.IN_REVIEW: "In review",
    WorkState.NEVER_SUBMITTED: "Never submitted",
    WorkState.WAITING_APPLICANT: "Waiting on the applicant",
    WorkState.PROPOSED: "Proposed, awaiting a colleague",
    WorkState.ON_HOLD: "On hold",
    WorkState.DECIDED: "Decided",
}
WORK_STATES: tuple[str, ...] = tuple(STATE_WORDS)

# Audit actions by staff that are not work on the case: opening a document, and who has it.
STAFF_NOT_ACTING = frozenset({"document.view", "application.assign", "application.unassign"})
# Audit actions by the applicant that give staff something new to read.
APPLICANT_INPUTS = frozenset(
    {"info_request.item.answer", "application.form.save", "document.upload", "application.submit"}
)
STAFF_ACTOR = "staff:"
APPLICANT_ACTOR = "applicant:"


class Fact(StrEnum):
    """The yes-or-no facts the rule reads (each one never unknown)."""

    # The reviewer may countersign (mlro or above).
    MAY_COUNTERSIGN = "may_countersign"
    # The waiting proposal, if any, is someone else's (the proposer never countersigns).
    PROPOSED_BY_OTHER = "proposed_by_other"
    # The applicant has submitted.
    SUBMITTED = "submitted"
    # Staff have acted on the case since the submission.
    REVIEWED_SINCE_SUBMISSION = "reviewed_since_submission"
    # Staff have acted, and the applicant gave input after staff last did.
    INPUT_SINCE_STAFF = "input_since_staff"


# Facts about the reviewer rather than the case: constants in the queue's SQL.
REVIEWER_FACTS = frozenset({Fact.MAY_COUNTERSIGN})


@dataclass(frozen=True, slots=True)
class Rule:
    """A state and when it holds: the status is one of `statuses` (any, when empty) and each
    fact in `facts` has the value given. The first rule that holds wins."""

    state: WorkState
    statuses: frozenset[str] = frozenset()
    facts: tuple[tuple[Fact, bool], ...] = ()


RULES: tuple[Rule, ...] = (
    Rule(WorkState.DECIDED, frozenset({ACTIVE, REJECTED})),
    Rule(
        WorkState.COUNTERSIGN,
        frozenset({PENDING_APPROVAL}),
        ((Fact.MAY_COUNTERSIGN, True), (Fact.PROPOSED_BY_OTHER, True)),
    ),
    Rule(WorkState.PROPOSED, frozenset({PENDING_APPROVAL})),
    Rule(WorkState.ON_HOLD, frozenset({HOLD})),
    Rule(WorkState.WAITING_APPLICANT, frozenset({NEEDS_INFO})),
    # What is left is pending.
    Rule(
        WorkState.SUBMITTED,
        facts=((Fact.SUBMITTED, True), (Fact.REVIEWED_SINCE_SUBMISSION, False)),
    ),
    Rule(WorkState.NEW_ANSWERS, facts=((Fact.INPUT_SINCE_STAFF, True),)),
    Rule(WorkState.NEVER_SUBMITTED, facts=((Fact.SUBMITTED, False),)),
    Rule(WorkState.IN_REVIEW),
)


@dataclass(frozen=True, slots=True)
class CaseFacts:
    """What the rule needs of one case: the last staff act (`STAFF_NOT_ACTING` aside) and the
    last applicant input (`APPLICANT_INPUTS`) come from the audit trail."""

    status: str
    submitted_at: datetime | None = None
    proposed_by: str | None = None
    staff_acted_at: datetime | None = None
    applicant_input_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Reviewer:
    staff_id: str
    may_countersign: bool

    @classmethod
    def of(cls, principal: StaffPrincipal) -> Reviewer:
        """The staff member looking at the queue; countersigning needs the role the decision
        rules ask for it (domain/status.py `REQUIRED_ROLE`)."""
        return cls(principal.staff_id, principal.at_least(REQUIRED_ROLE[COUNTERSIGN]))


def facts_of(case: CaseFacts, reviewer: Reviewer) -> dict[Fact, bool]:
    """The yes-or-no facts of `case` for `reviewer`."""
    staff_at, input_at = case.staff_acted_at, case.applicant_input_at
    submitted_at = case.submitted_at
    return {
        Fact.MAY_COUNTERSIGN: reviewer.may_countersign,
        Fact.PROPOSED_BY_OTHER: case.proposed_by != reviewer.staff_id,
        Fact.SUBMITTED: submitted_at is not None,
        Fact.REVIEWED_SINCE_SUBMISSION: submitted_at is not None
        and staff_at is not None
        and staff_at >= submitted_at,
        Fact.INPUT_SINCE_STAFF: staff_at is not None
        and input_at is not None
        and input_at > staff_at,
    }


def rule_holds(rule: Rule, status: str, facts: dict[Fact, bool]) -> bool:
    if rule.statuses and status not in rule.statuses:
        return False
    return all(facts[fact] is wanted for fact, wanted in rule.facts)


def work_state(case: CaseFacts, reviewer: Reviewer) -> WorkState:
    """The case's work state for `reviewer`: the first rule of `RULES` that holds."""
    facts = facts_of(case, reviewer)
    for rule in RULES:
        if rule_holds(rule, case.status, facts):
            return rule.state
    raise AssertionError("the last rule always holds")  # pragma: no cover


def state_words(state: str) -> str:
    """A state in the staff's words (the state itself when unknown)."""
    return STATE_WORDS.get(WorkState(state), state) if state in WORK_STATES else state
