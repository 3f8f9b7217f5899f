"""Reading one application and what hangs off it (docs/reference/tenant-api.md §5.3, §5.4, §5.12,
§5.14).

`get_tenant_application` and `load_application_view` are shared with the staff
case work and the portal, `application_for_write` and `application_for_read` are the staff
case work's (any tenant); the `read_*` functions back the tenant GET routes,
where a missing, foreign and erased application all read as the same 404.
"""

from __future__ import annotations

from typing import cast

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications.queries import rows as repo
from gatehouse.applications.queries.snapshot import load_attachments
from gatehouse.applications.schemas import Application as ApplicationView
from gatehouse.applications.schemas import (
    Checklist,
    ChecklistItem,
    DecisionList,
    DocumentList,
    InfoRequestList,
    application_view,
    decision_view,
    document_view,
    info_request_view,
)
from gatehouse.domain.checklist import Evidence, evaluate
from gatehouse.errors import gone, not_found
from gatehouse.storage.tables.applications import Application, Intake
from gatehouse.timeutil import format_ts
from gatehouse.verification import application_verified

APPLICATION_NOT_FOUND = "No application with this clientId."


async def get_tenant_application(
    session: AsyncSession, tenant_id: str, client_id: str, *, for_update: bool = False
) -> Application:
    """The tenant's application, or 404 not-found for a missing or foreign one.

    Erased applications are returned: the caller decides (reads answer 404,
    writes 410, member removal 400). With `for_update` the row is locked on
    PostgreSQL (the SQLite write transaction already serializes writers).
    """
    application = await repo.application_by_id(session, client_id, for_update=for_update)
    if application is None or application.tenant_id != tenant_id:
        raise not_found(APPLICATION_NOT_FOUND)
    return application


async def get_readable_application(
    session: AsyncSession, tenant_id: str, client_id: str
) -> Application:
    """For tenant reads: missing, foreign and erased are the same 404
    (docs/reference/tenant-api.md §5.3).
    """
    application = await get_tenant_application(session, tenant_id, client_id)
    if application.erased_at is not None:
        raise not_found(APPLICATION_NOT_FOUND)
    return application


async def application_for_write(session: AsyncSession, client_id: str) -> Application:
    """For staff case work: the row-locked application; 404 when missing, 410 when erased."""
    application = await repo.application_by_id(session, client_id, for_update=True)
    if application is None:
        raise not_found(APPLICATION_NOT_FOUND)
    if application.erased_at is not None:
        raise gone()
    return application


async def application_for_read(session: AsyncSession, client_id: str) -> Application:
    """For a staff read: the application; missing and erased are the same 404."""
    application = await repo.application_by_id(session, client_id)
    if application is None or application.erased_at is not None:
        raise not_found(APPLICATION_NOT_FOUND)
    return application


async def load_application_view(session: AsyncSession, application: Application) -> ApplicationView:
    """The full application read: members, latest decision, current request summary.

    One statement for all three (applications/queries/snapshot.py; bench/RESULTS.md).
    """
    found = await load_attachments(session, application.id)
    return application_view(
        application, found.members, found.latest_decision, found.open_info_request
    )


async def read_application(
    session: AsyncSession, tenant_id: str, client_id: str
) -> ApplicationView:
    """GET /v1/applications/{clientId} (docs/reference/tenant-api.md §5.3)."""
    application = await get_readable_application(session, tenant_id, client_id)
    return await load_application_view(session, application)


async def read_info_requests(
    session: AsyncSession, tenant_id: str, client_id: str
) -> InfoRequestList:
    """GET …/info-requests: `{data}` highest seq first, unpaged
    (docs/reference/tenant-api.md §5.4).
    """
    application = await get_readable_application(session, tenant_id, client_id)
    requests = await repo.info_requests_of(session, application.id)
    items = await repo.items_of(session, [request.id for request in requests])
    return {"data": [info_request_view(request, items[request.id]) for request in requests]}


async def read_decisions(session: AsyncSession, tenant_id: str, client_id: str) -> DecisionList:
    """GET …/decisions: `{data}` newest first, ties by id desc (docs/reference/tenant-api.md §5;
    docs/reference/tenant-api.md).
    """
    application = await get_readable_application(session, tenant_id, client_id)
    decisions = await repo.decisions_of(session, application.id)
    return {"data": [decision_view(decision) for decision in decisions]}


async def read_documents(session: AsyncSession, tenant_id: str, client_id: str) -> DocumentList:
    """GET …/documents (docs/reference/tenant-api.md §5.14)."""
    application = await get_readable_application(session, tenant_id, client_id)
    documents = await repo.documents_of(session, application.id)
    return {"data": [document_view(document) for document in documents]}


async def read_checklist(session: AsyncSession, tenant_id: str, client_id: str) -> Checklist:
    """GET …/checklist: the intake's items and whether each is satisfied
    (docs/reference/tenant-api.md §5.13).
    """
    application = await get_readable_application(session, tenant_id, client_id)
    intake = await session.get(Intake, application.label_id) if application.label_id else None
    checklist = (
        intake.checklist if intake is not None and isinstance(intake.checklist, list) else []
    )
    uploads = await repo.first_uploads(session, application.id)
    needs_verification = any(item.get("kind") == "verification" for item in checklist)
    evidence = Evidence(
        documents=uploads,
        submitted_at=application.submitted_at,
        verified_at=(
            await application_verified(session, application.id) if needs_verification else None
        ),
    )
    items = evaluate([item for item in checklist if isinstance(item, dict)], evidence)
    for item in items:
        item["satisfiedAt"] = format_ts(item["satisfiedAt"])
    return {"data": cast(list[ChecklistItem], items)}
