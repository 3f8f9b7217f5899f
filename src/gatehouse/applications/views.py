"""The builders of the tenant API's shapes (`schemas.py`; docs/reference/tenant-api.md §2.3,
§2.4, §5): an application, its members, decisions and information requests, from ORM objects
or rows of a Core read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Protocol, cast

from gatehouse.applications.schemas import (
    Application,
    ApplicationSummary,
    Decision,
    InfoRequest,
    InfoRequestItem,
    Member,
    OpenInfoRequest,
)
from gatehouse.domain.info_requests import OWED_ITEM_STATES, ItemState
from gatehouse.domain.status import ApplicationStatus
from gatehouse.storage.tables.applications import InfoRequest as InfoRequestRow
from gatehouse.storage.tables.applications import InfoRequestItem as InfoRequestItemRow
from gatehouse.timeutil import format_ts


class MemberFields(Protocol):
    """What a member's view reads: an ORM `Member` or a row of a Core read."""

    @property
    def id(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def joined_at(self) -> datetime: ...


class DecisionFields(Protocol):
    """What a decision's view reads."""

    @property
    def action(self) -> str | None: ...
    @property
    def from_status(self) -> str | None: ...
    @property
    def to_status(self) -> str | None: ...
    @property
    def by_role(self) -> str | None: ...
    @property
    def comment(self) -> str | None: ...
    @property
    def at(self) -> datetime: ...


class ApplicationFields(Protocol):
    """What an application's own fields in a view read."""

    @property
    def id(self) -> str: ...
    @property
    def external_ref(self) -> str | None: ...
    @property
    def company_name(self) -> str | None: ...
    @property
    def label_id(self) -> str | None: ...
    @property
    def applicant_email(self) -> str | None: ...
    @property
    def status(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime: ...
    @property
    def submitted_at(self) -> datetime | None: ...
    @property
    def rejection_reason(self) -> str | None: ...


# Item states counted as "requiring applicant action" (openItems), and as answered.
OPEN_ITEM_STATES = OWED_ITEM_STATES
ANSWERED_ITEM_STATES: frozenset[str] = frozenset({ItemState.ANSWERED})


def member_view(member: MemberFields) -> Member:
    """`members[]` element and member-add response."""
    return {
        "uid": member.id,
        "email": member.email,
        "role": member.role,
        "joinedAt": format_ts(member.joined_at),
    }


def decision_view(decision: DecisionFields) -> Decision:
    """`decision` object; never names the staff member."""
    return {
        "action": decision.action,
        "fromStatus": decision.from_status,
        "toStatus": decision.to_status,
        "byRole": decision.by_role,
        "comment": decision.comment,
        "at": format_ts(decision.at),
    }


def item_counts(items: Iterable[InfoRequestItemRow]) -> tuple[int, int]:
    """(openItems, answeredItems): open + reopened, and answered."""
    open_items = 0
    answered_items = 0
    for item in items:
        if item.status in OPEN_ITEM_STATES:
            open_items += 1
        elif item.status in ANSWERED_ITEM_STATES:
            answered_items += 1
    return open_items, answered_items


def _ordered(items: Iterable[InfoRequestItemRow]) -> list[InfoRequestItemRow]:
    # Items keep the order in which staff listed them.
    return sorted(items, key=lambda item: (item.position, item.id))


def info_request_item_view(item: InfoRequestItemRow) -> InfoRequestItem:
    """An item; the applicant's answer is never included."""
    return {
        "itemId": item.id,
        "type": item.type,
        "prompt": item.prompt,
        "status": item.status,
    }


def info_request_view(request: InfoRequestRow, items: Sequence[InfoRequestItemRow]) -> InfoRequest:
    """Information request list element, items in staff order."""
    open_items, answered_items = item_counts(items)
    return {
        "requestId": request.id,
        "seq": request.seq,
        "round": request.round,
        "status": request.status,
        "openItems": open_items,
        "answeredItems": answered_items,
        "comment": request.comment,
        "createdAt": format_ts(request.created_at),
        "updatedAt": format_ts(request.updated_at),
        "respondedAt": format_ts(request.responded_at),
        "closedAt": format_ts(request.closed_at),
        "cancelledAt": format_ts(request.cancelled_at),
        "items": [info_request_item_view(item) for item in _ordered(items)],
    }


def open_info_request_view(
    request: InfoRequestRow, items: Sequence[InfoRequestItemRow]
) -> OpenInfoRequest:
    """`openInfoRequest` summary of the application read."""
    open_items, answered_items = item_counts(items)
    return {
        "requestId": request.id,
        "seq": request.seq,
        "round": request.round,
        "openItems": open_items,
        "answeredItems": answered_items,
        "at": format_ts(request.updated_at),
    }


def application_summary_view(application: ApplicationFields) -> ApplicationSummary:
    """The application fields that need no other table (list elements)."""
    view: ApplicationSummary = {
        "clientId": application.id,
        "externalRef": application.external_ref,
        "companyName": application.company_name,
        "labelId": application.label_id,
        "applicantEmail": application.applicant_email,
        "status": application.status,
        "createdAt": format_ts(application.created_at),
        "updatedAt": format_ts(application.updated_at),
    }
    if application.submitted_at is not None:
        view["submittedAt"] = format_ts(application.submitted_at)
    if application.status == ApplicationStatus.REJECTED:
        view["rejectionReason"] = application.rejection_reason
    return view


def application_view(
    application: ApplicationFields,
    members: Sequence[MemberFields],
    latest_decision: DecisionFields | None,
    open_info_request: OpenInfoRequest | None,
) -> Application:
    """The application read (docs/reference/tenant-api.md §2.3).

    `open_info_request` is the summary built by `open_info_request_view` (or
    None). `submittedAt` is omitted when no submission is stored;
    `rejectionReason` appears only while the status is rejected.
    """
    # The summary dict grows in place: this is the hottest read (no copy per request).
    view = cast(Application, application_summary_view(application))
    view["decision"] = decision_view(latest_decision) if latest_decision is not None else None
    view["openInfoRequest"] = (
        cast(OpenInfoRequest, dict(open_info_request)) if open_info_request is not None else None
    )
    view["members"] = [member_view(member) for member in members]
    return view
