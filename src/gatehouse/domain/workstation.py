"""Pure rules of the reviewer's workstation (docs/workstation.md): who a case waits on, when a
waiting applicant is due a reminder, internal notes, the acknowledgement a proposal needs when
required checklist items are unsatisfied, and how ages read.

The moves staff may make are the status machine's (domain/status.py `allowed_moves`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from gatehouse.domain.normalize import normalize_email, trim
from gatehouse.domain.status import (
    APPROVE,
    HOLD,
    NEEDS_INFO,
    PENDING,
    PENDING_APPROVAL,
    InvalidInput,
)

# Who the case waits on, by status: the applicant owes answers (needs_info); staff owe a
# review, a countersignature or a release. Active and rejected cases wait on no one.
WAITING_ON_APPLICANT = "applicant"
WAITING_ON_STAFF = "staff"
WAITING_STATUSES: Mapping[str, tuple[str, ...]] = {
    WAITING_ON_APPLICANT: (NEEDS_INFO,),
    WAITING_ON_STAFF: (PENDING, PENDING_APPROVAL, HOLD),
}

# The queue's orders: recently updated first (the default), by the case's age, by how long it
# has been in its status, and by name. Each is a key and a direction: `QUEUE_SORTS` maps the
# `sort` value to (key, oldest or A-to-Z first); `SORT_FLIPPED` gives the other direction
# (a column heading's link).
SORT_UPDATED = "updated"
SORT_UPDATED_OLDEST = "updated_oldest"
SORT_OLDEST = "oldest"
SORT_NEWEST = "newest"
SORT_STATE_LONGEST = "state_longest"
SORT_STATE_SHORTEST = "state_shortest"
SORT_COMPANY = "company"
SORT_COMPANY_DESC = "company_desc"
KEY_UPDATED, KEY_CREATED, KEY_STATE, KEY_COMPANY = "updated", "created", "state", "company"
QUEUE_SORTS: Mapping[str, tuple[str, bool]] = {
    SORT_UPDATED: (KEY_UPDATED, False),
    SORT_UPDATED_OLDEST: (KEY_UPDATED, True),
    SORT_OLDEST: (KEY_CREATED, True),
    SORT_NEWEST: (KEY_CREATED, False),
    SORT_STATE_LONGEST: (KEY_STATE, True),
    SORT_STATE_SHORTEST: (KEY_STATE, False),
    SORT_COMPANY: (KEY_COMPANY, True),
    SORT_COMPANY_DESC: (KEY_COMPANY, False),
}
SORTS = tuple(QUEUE_SORTS)
SORT_FLIPPED: Mapping[str, str] = {
    name: next(
        other
        for other, (other_key, other_first) in QUEUE_SORTS.items()
        if other_key == key and other_first != first
    )
    for name, (key, first) in QUEUE_SORTS.items()
}

# The queue's assignee filter: the viewer's own cases, unassigned ones, or a staff id.
ASSIGNEE_ME = "me"
ASSIGNEE_NONE = "none"

MAX_NOTE = 4000
MAX_ACKNOWLEDGEMENT = 2000
MAX_SEARCH = 200
DEFAULT_REMINDER_DAYS = 3


def waiting_on(status: str) -> str | None:
    """`applicant`, `staff`, or None for a case that waits on no one."""
    for who, statuses in WAITING_STATUSES.items():
        if status in statuses:
            return who
    return None


def check_note(text: object) -> str:
    """A note's text, trimmed: 1 to MAX_NOTE characters (400 invalid-argument otherwise)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("Write the note before adding it.", field="text")
    cleaned = text.strip()
    if len(cleaned) > MAX_NOTE:
        raise InvalidInput(
            f"A note can be at most {MAX_NOTE} characters; this one has {len(cleaned)}.",
            field="text",
        )
    return cleaned


def search_text(value: str | None) -> str | None:
    """The queue's search, trimmed, in NFC and lowered; None when empty. Longer than MAX_SEARCH
    is cut. A whole email address is searched in its identity form (docs/identity.md), the
    form stored emails have."""
    email = normalize_email(value)
    if email is not None:
        return email[:MAX_SEARCH]
    text = unicodedata.normalize("NFC", trim(value or "")).lower()[:MAX_SEARCH]
    return text or None


# A client id (ids.py `new_id("app")`): a search for one is a lookup, not a substring match.
CLIENT_ID = re.compile(r"app_[0-9a-z]{25}")


def is_client_id(text: str) -> bool:
    return CLIENT_ID.fullmatch(text) is not None


def like_pattern(text: str) -> str:
    """`%text%` for LIKE with `\\` as the escape character: `%` and `_` match themselves."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def reminder_due(
    status: str,
    waiting_since: datetime,
    reminded_at: datetime | None,
    now: datetime,
    days: int,
) -> bool:
    """Whether a case waiting on the applicant is due a reminder: it has been needs_info for
    `days` days or more, and no reminder went out in the last `days` days."""
    if status != NEEDS_INFO:
        return False
    bound = timedelta(days=days)
    if now - waiting_since < bound:
        return False
    return reminded_at is None or now - reminded_at >= bound


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    """A proposal made although required checklist items are unsatisfied: why, and which."""

    reason: str
    items: tuple[str, ...]


def unsatisfied_required(checklist: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The required checklist items not satisfied (items as
    docs/reference/tenant-api.md §2.10 shows them)."""
    return [item for item in checklist if item.get("required") and not item.get("satisfied")]


def acknowledgement_for(
    action: str,
    unsatisfied: Sequence[Mapping[str, Any]],
    given: str | None,
    *,
    required: bool,
) -> Acknowledgement | None:
    """The acknowledgement a decision records, if any.

    Only a proposal (`approve`) with unsatisfied required items has one: the reason given,
    with the keys of those items. Without a reason the dashboard (`required`) refuses the
    proposal with 400 invalid-argument naming the items; the staff API proposes as it always
    did (docs/reference/staff-api.md §12.1). A reason given for any other action, or when
    nothing is unsatisfied, is ignored.
    """
    if action != APPROVE or not unsatisfied:
        return None
    reason = (given or "").strip()
    if len(reason) > MAX_ACKNOWLEDGEMENT:
        raise InvalidInput(
            f"The reason for approving anyway can be at most {MAX_ACKNOWLEDGEMENT} characters.",
            field="acknowledgeUnsatisfied",
        )
    if not reason:
        if required:
            labels = ", ".join(str(item.get("label") or item.get("key")) for item in unsatisfied)
            raise InvalidInput(
                f"Required checklist items are not satisfied yet: {labels}. To propose "
                "approval anyway, say why.",
                field="acknowledgeUnsatisfied",
            )
        return None
    return Acknowledgement(reason, tuple(str(item.get("key")) for item in unsatisfied))


def age_words(delta: timedelta) -> str:
    """A duration as the queue shows it: `12 min`, `5 h`, `3 d` (never negative)."""
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} d"


# The kinds of entry on the case page's timeline (cases/timeline.py), and how it labels them.
class EntryKind(StrEnum):
    STATUS = "status"
    REQUEST = "request"
    NOTE = "note"
    EVENT = "event"
    AUDIT = "audit"


# How the page labels each kind.
KIND_LABELS: dict[str, str] = {
    EntryKind.STATUS: "Status",
    EntryKind.REQUEST: "Information request",
    EntryKind.NOTE: "Internal note",
    EntryKind.EVENT: "Event sent",
    EntryKind.AUDIT: "Audit",
}
