"""Helpers for the tenant API tests: provisioning over HTTP and direct state changes
(suspension, erasure, decisions, requests, documents) made the way other areas make them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx
from sqlalchemy import select, update

from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import (
    Application,
    Decision,
    Document,
    InfoRequest,
    InfoRequestItem,
    LoginLink,
    Member,
    PortalSession,
)
from gatehouse.storage.tables.core import AuditEntry, Tenant
from tests.support.factories import TenantFixture


async def provision(
    client: httpx.AsyncClient, tenant: TenantFixture, email: str = "ann@example.test", **fields: Any
) -> dict[str, Any]:
    response = await client.post(
        "/v1/applications", json={"email": email, **fields}, headers=tenant.headers
    )
    assert response.status_code in (200, 201), response.text
    body: dict[str, Any] = response.json()
    return body


async def set_tenant_status(runtime: Runtime, tenant_id: str, status: str) -> None:
    async with runtime.db.write() as session:
        await session.execute(update(Tenant).where(Tenant.id == tenant_id).values(status=status))


async def erase(runtime: Runtime, client_id: str) -> None:
    """What staff erasure leaves behind: no members, no personal data, erased_at set."""
    async with runtime.db.write() as session:
        application = await session.get(Application, client_id)
        assert application is not None
        application.erased_at = runtime.now()
        application.applicant_email = None
        application.company_name = None
        application.owner_uid = None
        await session.execute(Member.__table__.delete().where(Member.application_id == client_id))


async def add_decision(
    runtime: Runtime, client_id: str, action: str, to_status: str, at: datetime, **extra: Any
) -> str:
    decision_id = new_id("dec")
    async with runtime.db.write() as session:
        session.add(
            Decision(
                id=decision_id,
                application_id=client_id,
                action=action,
                from_status=extra.get("from_status", "pending"),
                to_status=to_status,
                by_role=extra.get("by_role", "analyst"),
                by_staff_id=extra.get("by_staff_id", "stf_secret"),
                comment=extra.get("comment"),
                at=at,
            )
        )
        await session.execute(
            update(Application)
            .where(Application.id == client_id)
            .values(status=to_status, rejection_reason=extra.get("rejection_reason"))
        )
    return decision_id


async def add_info_request(
    runtime: Runtime,
    client_id: str,
    seq: int,
    status: str,
    item_statuses: list[str],
    comment: str | None = "Please send",
) -> str:
    request_id = new_id("ir")
    now = runtime.now()
    async with runtime.db.write() as session:
        session.add(
            InfoRequest(
                id=request_id,
                application_id=client_id,
                seq=seq,
                round=1,
                status=status,
                comment=comment,
                created_at=now,
                updated_at=now,
            )
        )
        await session.flush()
        for position, item_status in enumerate(item_statuses):
            session.add(
                InfoRequestItem(
                    id=new_id("itm"),
                    request_id=request_id,
                    position=len(item_statuses) - position,  # staff order differs from insert
                    type="question",
                    prompt=f"prompt {position}",
                    status=item_status,
                    answer="secret answer" if item_status != "open" else None,
                )
            )
    return request_id


async def add_document(
    runtime: Runtime, client_id: str, doc_type: str, at: datetime | None = None
) -> str:
    document_id = new_id("doc")
    async with runtime.db.write() as session:
        session.add(
            Document(
                id=document_id,
                application_id=client_id,
                type=doc_type,
                status="uploaded",
                content_type="application/pdf",
                size_bytes=1234,
                filename="private-name.pdf",
                content=b"%PDF-1.4 secret",
                uploaded_at=at or runtime.now(),
            )
        )
    return document_id


async def links_of(runtime: Runtime, client_id: str) -> list[LoginLink]:
    async with runtime.db.read() as session:
        result = await session.execute(
            select(LoginLink).where(LoginLink.application_id == client_id)
        )
        return list(result.scalars())


async def add_portal_session(runtime: Runtime, client_id: str, member_id: str) -> str:
    session_id = new_id("ps")
    now = runtime.now()
    async with runtime.db.write() as session:
        session.add(
            PortalSession(
                id=session_id,
                application_id=client_id,
                member_id=member_id,
                token_hash=new_id("h"),
                csrf_token="x",
                created_at=now,
                expires_at=now,
            )
        )
    return session_id


async def portal_session(runtime: Runtime, session_id: str) -> PortalSession:
    async with runtime.db.read() as session:
        row = await session.get(PortalSession, session_id)
        assert row is not None
        return row


async def audit_entries(runtime: Runtime, tenant_id: str) -> list[AuditEntry]:
    async with runtime.db.read() as session:
        result = await session.execute(
            select(AuditEntry).where(AuditEntry.tenant_id == tenant_id).order_by(AuditEntry.at)
        )
        return list(result.scalars())


async def application_row(runtime: Runtime, client_id: str) -> Application:
    async with runtime.db.read() as session:
        row = await session.get(Application, client_id)
        assert row is not None
        return row
