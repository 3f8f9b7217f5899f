"""GET /v1/applications: the paged list (docs/reference/tenant-api.md §5.11, §4.7).

Keyset paging on (updatedAt desc, clientId desc) through `gatehouse.paging`, served by the
index `(tenant_id, updated_at, id)` (or the status one). One query per page: elements carry
the application fields only, without members, decision or openInfoRequest. A cursor is bound
to the tenant and the filters it was issued for.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, cast

from sqlalchemy import Integer, bindparam, select, tuple_

from gatehouse.applications.queries.snapshot import SUMMARY_COLUMNS
from gatehouse.applications.schemas import application_summary_view
from gatehouse.crypto import Crypto
from gatehouse.domain.normalize import cut_text
from gatehouse.domain.status import STATUSES
from gatehouse.errors import invalid_argument
from gatehouse.paging import (
    CursorScope,
    PageRequest,
    page_of,
    parse_page,
    query_values,
    read_position,
)
from gatehouse.storage.db import Database
from gatehouse.storage.prepared import PreparedRead
from gatehouse.storage.tables.applications import Application
from gatehouse.timeutil import parse_ts

CURSOR_KIND = "applications"
QUERY_PARAMETERS = frozenset({"limit", "cursor", "status", "externalRef", "updatedSince"})


@dataclass(frozen=True, slots=True)
class ListQuery:
    page: PageRequest
    status: str | None
    external_ref: str | None
    updated_since: datetime | None

    def filters(self) -> dict[str, Any]:
        """What a cursor is bound to (limit may change between pages)."""
        return {
            "status": self.status,
            "externalRef": self.external_ref,
            "updatedSince": self.updated_since.isoformat() if self.updated_since else None,
        }


def parse_list_query(params: list[tuple[str, str]]) -> ListQuery:
    """Validate the query string; anything unknown or repeated is 400 invalid-argument."""
    values = query_values(params, QUERY_PARAMETERS)
    status = values.get("status")
    if status is not None and status not in STATUSES:
        raise invalid_argument("status is not an application status.", "status", "unknown status")
    updated_since = None
    if "updatedSince" in values:
        try:
            updated_since = parse_ts(values["updatedSince"])
        except ValueError:
            raise invalid_argument(
                "updatedSince must be an RFC 3339 timestamp.", "updatedSince", "invalid timestamp"
            ) from None
    external_ref = values.get("externalRef")
    return ListQuery(
        page=parse_page(values.get("limit"), values.get("cursor")),
        status=status,
        external_ref=cut_text(external_ref) if external_ref is not None else None,
        updated_since=updated_since,
    )


async def list_applications(
    db: Database, crypto: Crypto, tenant_id: str, query: ListQuery
) -> dict[str, Any]:
    """`{data, nextCursor, hasMore}`; erased applications never appear.

    A page is one prepared statement (`_page_statement`: one per combination of
    filters, compiled once), run through `Database.fetch_prepared`.
    """
    scope = CursorScope(CURSOR_KIND, tenant_id, query.filters())
    position = read_position(crypto, scope, query.page.cursor)
    params: dict[str, Any] = {"tenant_id": tenant_id, "limit": query.page.limit + 1}
    if query.status is not None:
        params["status"] = query.status
    if query.external_ref is not None:
        params["external_ref"] = query.external_ref
    if query.updated_since is not None:
        params["updated_since"] = query.updated_since
    if position is not None:
        params["after_at"], params["after_id"] = position
    prepared = _page_statement(
        query.status is not None,
        query.external_ref is not None,
        query.updated_since is not None,
        position is not None,
    )
    rows = [cast(Application, row) for row in await db.fetch_prepared(prepared, params)]
    return page_of(
        rows,
        query.page,
        crypto=crypto,
        scope=scope,
        position_of=lambda application: (application.updated_at, application.id),
        view=application_summary_view,
    )


@cache
def _page_statement(status: bool, external_ref: bool, since: bool, after: bool) -> PreparedRead:
    """The page's statement for this combination of filters, built and compiled once.

    Only the columns a list element shows, as plain rows; newest first on (updatedAt,
    clientId), from just after the cursor's position as one row-value comparison (the
    index range `keyset_after` describes).
    """
    stmt = select(*SUMMARY_COLUMNS).where(
        Application.tenant_id == bindparam("tenant_id", type_=Application.tenant_id.type),
        Application.erased_at.is_(None),
    )
    if status:
        stmt = stmt.where(Application.status == bindparam("status", type_=Application.status.type))
    if external_ref:
        ref = bindparam("external_ref", type_=Application.external_ref.type)
        stmt = stmt.where(Application.external_ref == ref)
    if since:
        stmt = stmt.where(
            Application.updated_at >= bindparam("updated_since", type_=Application.updated_at.type)
        )
    if after:
        stmt = stmt.where(
            tuple_(Application.updated_at, Application.id)
            < tuple_(
                bindparam("after_at", type_=Application.updated_at.type),
                bindparam("after_id", type_=Application.id.type),
            )
        )
    stmt = stmt.order_by(Application.updated_at.desc(), Application.id.desc())
    return PreparedRead(stmt.limit(bindparam("limit", type_=Integer())))
