"""Rows for case-work tests: an application with its applicant member, sign-in
links (hashed exactly as the service stores them), and outbox reads."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import orjson
from sqlalchemy import select

from gatehouse.ids import new_id, random_token
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, LoginLink, Member
from gatehouse.storage.tables.core import Event


@dataclass
class CaseFixture:
    client_id: str
    member_id: str
    tenant_id: str
    email: str


async def make_application(
    runtime: Runtime,
    tenant_id: str,
    *,
    email: str | None = None,
    external_ref: str | None = None,
    company_name: str = "Acme Ltd",
    label_id: str | None = None,
    status: str = "pending",
) -> CaseFixture:
    """An application as provisioning leaves it: one applicant member, the owner."""
    email = email or f"applicant.{new_id('x')[-8:]}@example.test"
    now = runtime.now()
    client_id = new_id("app")
    member_id = new_id("mem")
    async with runtime.db.write() as session:
        session.add(
            Application(
                id=client_id,
                tenant_id=tenant_id,
                identity=f"ref:{external_ref}" if external_ref else f"email:{email}",
                external_ref=external_ref,
                applicant_email=email,
                company_name=company_name,
                label_id=label_id,
                status=status,
                owner_uid=member_id,
                locked=False,
                form_data={},
                event_sequence=0,
                request_sequence=0,
                created_at=now,
                updated_at=now,
            )
        )
        await session.flush()
        session.add(
            Member(
                id=member_id,
                application_id=client_id,
                email=email,
                role="applicant",
                joined_at=now,
            )
        )
    return CaseFixture(client_id, member_id, tenant_id, email)


async def make_login_link(
    runtime: Runtime,
    case: CaseFixture,
    *,
    member_id: str | None = None,
    redirect_path: str | None = None,
    lifetime: timedelta = timedelta(days=3),
) -> str:
    """A sign-in link token; only its keyed hash is stored."""
    token = random_token(43)
    now = runtime.now()
    async with runtime.db.write() as session:
        session.add(
            LoginLink(
                id=new_id("lnk"),
                application_id=case.client_id,
                member_id=member_id or case.member_id,
                token_hash=runtime.crypto.hash_secret(token),
                redirect_path=redirect_path,
                created_at=now,
                expires_at=now + lifetime,
            )
        )
    return token


async def outbox_events(runtime: Runtime, client_id: str) -> list[dict[str, Any]]:
    """The envelopes written for one application, in sequence order."""
    async with runtime.db.read() as session:
        rows = (
            await session.execute(
                select(Event.body).where(Event.application_id == client_id).order_by(Event.sequence)
            )
        ).scalars()
        return [orjson.loads(body) for body in rows]


async def application_row(runtime: Runtime, client_id: str) -> Application:
    async with runtime.db.read() as session:
        application = await session.get(Application, client_id)
        assert application is not None
        return application
