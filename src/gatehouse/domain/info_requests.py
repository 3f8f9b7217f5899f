"""Information requests and their items (docs/reference/tenant-api.md §2.4,
docs/reference/staff-api.md §6.4).

Request states: open, responded, closed, cancelled. Item states: open,
answered, accepted, reopened. While a request is active (neither closed nor
cancelled) its status is derived from its items: open while any item is open
or reopened, responded once the applicant has answered every open item.
Reopening an item starts a new round (round + 1 exactly).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from gatehouse.domain.event_types import EventType
from gatehouse.domain.status import InvalidInput, MoveNotAllowed, TextTooLong


class RequestState(StrEnum):
    """An information request's `status`."""

    OPEN = "open"
    RESPONDED = "responded"
    CLOSED = "closed"
    CANCELLED = "cancelled"


class ItemState(StrEnum):
    """An item's `status`."""

    OPEN = "open"
    ANSWERED = "answered"
    ACCEPTED = "accepted"
    REOPENED = "reopened"


class ItemType(StrEnum):
    """What an item asks for."""

    QUESTION = "question"
    FIELD = "field"
    DOCUMENT = "document"


REQUEST_OPEN = RequestState.OPEN
REQUEST_RESPONDED = RequestState.RESPONDED
REQUEST_CLOSED = RequestState.CLOSED
REQUEST_CANCELLED = RequestState.CANCELLED

ITEM_OPEN = ItemState.OPEN
ITEM_ANSWERED = ItemState.ANSWERED
ITEM_ACCEPTED = ItemState.ACCEPTED
ITEM_REOPENED = ItemState.REOPENED

ITEM_TYPES: tuple[str, ...] = tuple(ItemType)
# Items requiring applicant action (`openItems`): open and reopened.
OWED_ITEM_STATES: frozenset[str] = frozenset({ItemState.OPEN, ItemState.REOPENED})
# Requests still being worked on (the application's current request is one of these).
ACTIVE_REQUEST_STATES: frozenset[str] = frozenset({RequestState.OPEN, RequestState.RESPONDED})

MAX_ITEMS = 50
MAX_PROMPT = 2000
MAX_COMMENT = 4000
MAX_ANSWER = 10000

EVENT_RAISED = EventType.INFO_REQUEST_RAISED
EVENT_RESPONDED = EventType.INFO_REQUEST_RESPONDED
EVENT_CLOSED = EventType.INFO_REQUEST_CLOSED
EVENT_REMINDER = EventType.INFO_REQUEST_REMINDER


@dataclass(frozen=True, slots=True)
class NewItem:
    type: str
    prompt: str


@dataclass(frozen=True, slots=True)
class NewRequest:
    comment: str
    items: tuple[NewItem, ...]


def _text(value: object, field: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{field} must be a nonempty string.", field=field)
    text = value.strip()
    if len(text) > limit:
        raise TextTooLong(f"{field} must be at most {limit} characters.", field=field)
    return text


def _staff_text(value: object, field: str, limit: int, *, empty: str, label: str) -> str:
    """A staff-written text of a request, refused in words (the field in the details)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(empty, field=field)
    text = value.strip()
    if len(text) > limit:
        raise TextTooLong(
            f"{label} can be at most {limit} characters; this one has {len(text)}.", field=field
        )
    return text


def new_request(comment: object, items: object) -> NewRequest:
    """Validate a staff request body `{comment, items: [{type, prompt}]}`; each refusal says
    in words what to change, the field it concerns in its details."""
    checked_comment = _staff_text(
        comment,
        "comment",
        MAX_COMMENT,
        empty="Write a comment the applicant will read.",
        label="The comment",
    )
    if not isinstance(items, list) or not items:
        raise InvalidInput("Add at least one item for the applicant to answer.", field="items")
    if len(items) > MAX_ITEMS:
        raise InvalidInput(f"A request can hold at most {MAX_ITEMS} items.", field="items")
    checked: list[NewItem] = []
    for index, item in enumerate(items):
        number = index + 1
        if not isinstance(item, Mapping):
            raise InvalidInput(f"Item {number} needs a type and a prompt.", field=f"items.{index}")
        item_type = item.get("type")
        if item_type not in ITEM_TYPES:
            raise InvalidInput(
                f"Choose what item {number} asks for: one of {', '.join(ITEM_TYPES)}.",
                field=f"items.{index}.type",
            )
        prompt = _staff_text(
            item.get("prompt"),
            f"items.{index}.prompt",
            MAX_PROMPT,
            empty=f"Write the prompt of item {number}.",
            label=f"The prompt of item {number}",
        )
        checked.append(NewItem(type=str(item_type), prompt=prompt))
    return NewRequest(comment=checked_comment, items=tuple(checked))


def open_items(item_states: Iterable[str]) -> int:
    """Items requiring applicant action: open and reopened (`openItems`)."""
    return sum(1 for s in item_states if s in OWED_ITEM_STATES)


def answered_items(item_states: Iterable[str]) -> int:
    """Answered items awaiting staff review (`answeredItems`)."""
    return sum(1 for s in item_states if s == ITEM_ANSWERED)


def derive_status(
    item_states: Sequence[str], *, closed: bool = False, cancelled: bool = False
) -> str:
    """The request status: closed/cancelled by staff, else derived from the items."""
    if cancelled:
        return REQUEST_CANCELLED
    if closed:
        return REQUEST_CLOSED
    return REQUEST_OPEN if open_items(item_states) else REQUEST_RESPONDED


def _require_active(request_status: str) -> None:
    if request_status not in ACTIVE_REQUEST_STATES:
        raise MoveNotAllowed(f"The information request is {request_status}.")


def answer_item(request_status: str, item_status: str) -> str:
    """The applicant answers an item: open or reopened → answered.

    An answered item may be answered again until staff review it; an
    accepted item is settled.
    """
    _require_active(request_status)
    if item_status in OWED_ITEM_STATES or item_status == ITEM_ANSWERED:
        return ITEM_ANSWERED
    raise MoveNotAllowed("This item was already accepted.")


def accept_item(request_status: str, item_status: str) -> str:
    """Staff accept an answered item."""
    _require_active(request_status)
    if item_status != ITEM_ANSWERED:
        raise MoveNotAllowed(f"Only an answered item can be accepted; this one is {item_status}.")
    return ITEM_ACCEPTED


def reopen_item(request_status: str, item_status: str) -> str:
    """Staff reopen an answered or accepted item; the request gets a new round."""
    _require_active(request_status)
    if item_status not in (ITEM_ANSWERED, ITEM_ACCEPTED):
        raise MoveNotAllowed(
            f"Only an answered or accepted item can be reopened; this one is {item_status}."
        )
    return ITEM_REOPENED


def check_reminder(request_status: str, item_states: Iterable[str]) -> None:
    """A reminder is for an open request whose applicant still owes answers
    (docs/reference/staff-api.md §12.5); anything else is 400 failed-precondition."""
    if request_status != REQUEST_OPEN or not open_items(item_states):
        raise MoveNotAllowed(
            "Only an open request with items the applicant still owes can be reminded about; "
            f"this one is {request_status}."
        )


def close_request(request_status: str) -> str:
    """Staff close an active request."""
    _require_active(request_status)
    return REQUEST_CLOSED


def cancel_request(request_status: str) -> str:
    """Staff cancel an active request."""
    _require_active(request_status)
    return REQUEST_CANCELLED


def check_answer(value: object) -> str:
    """The applicant's answer text: a nonempty string of bounded length."""
    return _text(value, "answer", MAX_ANSWER)


def document_reference(value: Any) -> str | None:
    """An optional `documentId` naming an uploaded document."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("documentId must be a nonempty string.", field="documentId")
    return value.strip()
