"""What hangs off an application, for its read, in one SQL statement (bench/RESULTS.md).

The application read (docs/reference/tenant-api.md §2.4) shows every member, the latest decision and
the current information request's summary. Fetched one table at a time that is
three or four round trips, each with the ORM's per-query cost; here it is one
statement: the members joined to the application, and the latest decision and
the current request (with its item counts) picked by correlated subqueries.
Both SQLite and PostgreSQL run it; the same rules as `applications_repo` pick
the rows (latest decision: newest `at`, ties by id; current request: highest
`seq` among open and responded).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import bindparam, func, literal_column, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications.queries.rows import CURRENT_REQUEST_STATES
from gatehouse.applications.schemas import Application as ApplicationView
from gatehouse.applications.schemas import OpenInfoRequest
from gatehouse.applications.views import (
    ANSWERED_ITEM_STATES,
    OPEN_ITEM_STATES,
    DecisionFields,
    MemberFields,
    application_view,
    open_info_request_view,
)
from gatehouse.storage.db import Database
from gatehouse.storage.prepared import PreparedRead
from gatehouse.storage.tables.applications import (
    Application,
    Decision,
    InfoRequest,
    InfoRequestItem,
    Member,
)
from gatehouse.storage.tx_statements import Tx, TxStatement


@dataclass(frozen=True, slots=True)
class _ItemStatus:
    """Stands for an item where only its status is needed (the summary's counts)."""

    status: str


@dataclass(frozen=True, slots=True)
class MemberRow:
    """A member as the read shows it (cheaper to make than an ORM instance)."""

    id: str
    email: str
    role: str
    joined_at: datetime


@dataclass(frozen=True, slots=True)
class DecisionRow:
    """The latest decision as the read shows it."""

    action: str | None
    from_status: str | None
    to_status: str | None
    by_role: str | None
    comment: str | None
    at: datetime


@dataclass(frozen=True, slots=True)
class Attachments:
    members: Sequence[MemberFields]
    latest_decision: DecisionFields | None
    open_info_request: OpenInfoRequest | None


_STATE_NAME = re.compile(r"[a-z_]+")


def _one_of(column: Any, states: Iterable[str]) -> Any:
    """`column IN ('a', 'b')` with the constant states written into the SQL.

    A list given to `in_()` becomes an "expanding" parameter, which SQLAlchemy
    re-renders into the cached SQL string on every execution (bench/RESULTS.md: 6 % of
    the read's samples); these lists are fixed, so they are compiled in once.
    """
    names = sorted(states)
    unsafe = [name for name in names if not _STATE_NAME.fullmatch(name)]
    if unsafe:  # they are written into the SQL: only plain state names may be
        raise ValueError(f"not a state name: {unsafe!r}")
    return column.in_([literal_column(f"'{name}'") for name in names])


def _item_count(states: frozenset[str]) -> Any:
    return (
        select(func.count())
        .select_from(InfoRequestItem)
        .where(
            InfoRequestItem.request_id == InfoRequest.id,
            _one_of(InfoRequestItem.status, states),
        )
        .correlate(InfoRequest)
        .scalar_subquery()
    )


# The application's own columns that its read shows (views.application_summary_view).
SUMMARY_COLUMNS = (
    Application.id,
    Application.tenant_id,
    Application.erased_at,
    Application.external_ref,
    Application.company_name,
    Application.label_id,
    Application.applicant_email,
    Application.status,
    Application.created_at,
    Application.updated_at,
    Application.submitted_at,
    Application.rejection_reason,
)


def _statement(*leading: Any) -> Any:
    application_id = bindparam("application_id", type_=Application.id.type)
    latest_decision = (
        select(Decision.id)
        .where(Decision.application_id == application_id)
        .order_by(Decision.at.desc(), Decision.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    current_request = (
        select(InfoRequest.id)
        .where(
            InfoRequest.application_id == application_id,
            _one_of(InfoRequest.status, CURRENT_REQUEST_STATES),
        )
        .order_by(InfoRequest.seq.desc())
        .limit(1)
        .scalar_subquery()
    )
    return (
        select(
            *leading,
            Member.id.label("member_id"),
            Member.email,
            Member.role,
            Member.joined_at,
            Decision.id.label("decision_id"),
            Decision.action,
            Decision.from_status,
            Decision.to_status,
            Decision.by_role,
            Decision.comment,
            Decision.at,
            InfoRequest.id.label("request_id"),
            InfoRequest.seq,
            InfoRequest.round,
            InfoRequest.updated_at.label("request_updated_at"),
            _item_count(frozenset(OPEN_ITEM_STATES)).label("open_items"),
            _item_count(frozenset(ANSWERED_ITEM_STATES)).label("answered_items"),
        )
        .select_from(Application)
        .outerjoin(Member, Member.application_id == Application.id)
        .outerjoin(Decision, Decision.id == latest_decision)
        .outerjoin(InfoRequest, InfoRequest.id == current_request)
        .where(Application.id == application_id)
        .order_by(Member.joined_at, Member.id)
    )


# Built once: SQLAlchemy then reuses its compiled form and cache key on every read.
_STATEMENT = _statement()
_READ_STATEMENT = _statement(*SUMMARY_COLUMNS)
# The read itself is compiled once per dialect and run on the driver (storage/prepared.py).
_READ = PreparedRead(_READ_STATEMENT)
# The same for a write transaction's statements (storage/tx_statements.py).
_ATTACHMENTS = TxStatement(_STATEMENT)


async def load_attachments(session: AsyncSession, application_id: str) -> Attachments:
    """Members (joining order, ties by uid), latest decision, current request summary.

    Through the session, so that its pending changes are flushed first.
    """
    rows = (await session.execute(_STATEMENT, {"application_id": application_id})).all()
    return _attachments(rows, application_id)


async def load_attachments_on(tx: Tx, application_id: str) -> Attachments:
    """`load_attachments` in a write transaction that runs no unit of work."""
    rows = await tx.run(_ATTACHMENTS, {"application_id": application_id})
    return _attachments(rows, application_id)


async def read_application_view(
    db: Database, tenant_id: str, application_id: str
) -> ApplicationView | None:
    """The whole application read (docs/reference/tenant-api.md §2.4) in one statement on a plain
    connection.

    None for a missing, foreign or erased application (all the same 404,
    docs/reference/tenant-api.md §5.3). One statement through `Database.fetch_prepared`, not
    an ORM session: the read needs no unit of work, nor SQLAlchemy's work on each execution.
    """
    rows = await db.fetch_prepared(_READ, {"application_id": application_id})
    if not rows or rows[0].tenant_id != tenant_id or rows[0].erased_at is not None:
        return None
    found = _attachments(rows, application_id)
    # The row itself carries the application's fields (SUMMARY_COLUMNS).
    return application_view(rows[0], found.members, found.latest_decision, found.open_info_request)


def _attachments(rows: Sequence[Any], application_id: str) -> Attachments:
    members = [
        MemberRow(row.member_id, row.email, row.role, row.joined_at)
        for row in rows
        if row.member_id is not None
    ]
    first = rows[0] if rows else None
    decision = None
    if first is not None and first.decision_id is not None:
        decision = DecisionRow(
            action=first.action,
            from_status=first.from_status,
            to_status=first.to_status,
            by_role=first.by_role,
            comment=first.comment,
            at=first.at,
        )
    summary = None
    if first is not None and first.request_id is not None:
        request = InfoRequest(
            id=first.request_id,
            application_id=application_id,
            seq=first.seq,
            round=first.round,
            updated_at=first.request_updated_at,
        )
        statuses = [_ItemStatus(next(iter(sorted(OPEN_ITEM_STATES))))] * int(first.open_items)
        statuses += [_ItemStatus(next(iter(ANSWERED_ITEM_STATES)))] * int(first.answered_items)
        summary = open_info_request_view(request, cast(Sequence[InfoRequestItem], statuses))
    return Attachments(members, decision, summary)
