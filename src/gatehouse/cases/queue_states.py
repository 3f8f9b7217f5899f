"""The queue's work states in SQL (docs/workstation.md "Work states"): the rule table of
`gatehouse.domain.work_state` compiled into one CASE expression over an application row, and
the count of each state under the queue's other filters in one grouped query.

The facts that need the audit trail are scalar subqueries on `ix_audit_application`
(application id, time): the last staff act and the last applicant input on the case. A CASE
evaluates them only for the pending cases that reach those rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, case, func, not_, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.work_state import (
    APPLICANT_ACTOR,
    APPLICANT_INPUTS,
    REVIEWER_FACTS,
    RULES,
    STAFF_ACTOR,
    STAFF_NOT_ACTING,
    Fact,
    Reviewer,
    Rule,
)
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import AuditEntry


def staff_acted_at() -> Any:
    """The time of the last staff act on the application of the outer row (or NULL)."""
    return (
        select(func.max(AuditEntry.at))
        .where(AuditEntry.application_id == Application.id)
        .where(AuditEntry.actor.like(STAFF_ACTOR + "%"))
        .where(AuditEntry.action.not_in(sorted(STAFF_NOT_ACTING)))
        .scalar_subquery()
    )


def applicant_input_at() -> Any:
    """The time of the applicant's last input on the application of the outer row (or NULL)."""
    return (
        select(func.max(AuditEntry.at))
        .where(AuditEntry.application_id == Application.id)
        .where(AuditEntry.actor.like(APPLICANT_ACTOR + "%"))
        .where(AuditEntry.action.in_(sorted(APPLICANT_INPUTS)))
        .scalar_subquery()
    )


def _case_fact(fact: Fact, reviewer: Reviewer) -> Any:
    """A row fact as a condition that is never NULL (so its negation is exact)."""
    submitted = Application.submitted_at
    if fact is Fact.PROPOSED_BY_OTHER:
        proposer = Application.proposed_by
        return or_(proposer.is_(None), and_(proposer.is_not(None), proposer != reviewer.staff_id))
    if fact is Fact.SUBMITTED:
        return submitted.is_not(None)
    staff_at = staff_acted_at()
    if fact is Fact.REVIEWED_SINCE_SUBMISSION:
        return and_(submitted.is_not(None), staff_at.is_not(None), staff_at >= submitted)
    if fact is Fact.INPUT_SINCE_STAFF:
        input_at = applicant_input_at()
        return and_(staff_at.is_not(None), input_at.is_not(None), input_at > staff_at)
    raise ValueError(f"no SQL for the fact {fact}")  # pragma: no cover


def _rule_condition(rule: Rule, reviewer: Reviewer) -> Any | None:
    """The rule's condition on a row; None when the reviewer's own facts rule it out."""
    reviewer_facts = {Fact.MAY_COUNTERSIGN: reviewer.may_countersign}
    parts: list[Any] = []
    if rule.statuses:
        parts.append(Application.status.in_(sorted(rule.statuses)))
    for fact, wanted in rule.facts:
        if fact in REVIEWER_FACTS:
            if reviewer_facts[fact] is not wanted:
                return None
            continue
        condition = _case_fact(fact, reviewer)
        parts.append(condition if wanted else not_(condition))
    return and_(*parts) if parts else true()


def state_of(reviewer: Reviewer, rules: Sequence[Rule] = RULES) -> Any:
    """The work state of the row, for `reviewer`, as one CASE expression."""
    whens = []
    for rule in rules[:-1]:
        condition = _rule_condition(rule, reviewer)
        if condition is not None:
            whens.append((condition, rule.state.value))
    last = rules[-1]
    if last.statuses or last.facts:  # pragma: no cover - the table ends with a catch-all
        raise ValueError("the last rule must always hold")
    return case(*whens, else_=last.state.value)


async def state_counts(
    session: AsyncSession, conditions: Sequence[Any], reviewer: Reviewer
) -> dict[str, int]:
    """How many applications under `conditions` are in each work state (absent: none)."""
    rows = select(state_of(reviewer).label("state")).where(*conditions).subquery()
    found = await session.execute(select(rows.c.state, func.count()).group_by(rows.c.state))
    return {str(state): int(count) for state, count in found.all()}
