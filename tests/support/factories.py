"""Creating tenants, keys, staff and intakes for tests, through the real services."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gatehouse.accounts.lifecycle import create_staff_member
from gatehouse.accounts.service import create_api_key, create_tenant
from gatehouse.audit.context import WriteContext
from gatehouse.domain.principals import ALL_SCOPES
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Intake
from tests.support.leaks import remember


@dataclass
class TenantFixture:
    tenant_id: str
    api_key: str = field(repr=False)  # a secret: kept out of failure reports
    key_id: str
    label_id: str | None = None
    keys: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}


@dataclass
class StaffFixture:
    staff_id: str
    email: str
    role: str
    token: str = field(repr=False)
    invite_url: str = field(default="", repr=False)
    # Set once the invite is used (tests/pages/helpers.py): secrets, kept out of reports.
    password: str | None = field(default=None, repr=False)
    totp_secret: str | None = field(default=None, repr=False)
    recovery_codes: list[str] = field(default_factory=list, repr=False)
    last_totp_step: int = 0

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


async def add_intake(
    runtime: Runtime,
    tenant_id: str,
    name: str = "Default intake",
    order: int | None = 1,
    attached: bool = True,
    checklist: list[dict[str, Any]] | None = None,
    form_fields: list[dict[str, Any]] | None = None,
) -> str:
    from sqlalchemy import func, select

    label_id = new_id("lbl")
    now = runtime.now()
    async with runtime.db.write() as session:
        position = (
            await session.scalar(
                select(func.coalesce(func.max(Intake.position), 0)).where(
                    Intake.tenant_id == tenant_id
                )
            )
        ) or 0
        session.add(
            Intake(
                id=label_id,
                tenant_id=tenant_id,
                position=position + 1,
                name=name,
                order=order,
                attached=attached,
                checklist=checklist
                if checklist is not None
                else [
                    {"key": "passport", "label": "Passport", "kind": "document", "required": True},
                ],
                form_fields=form_fields or [],
                created_at=now,
                updated_at=now,
            )
        )
    return label_id


async def make_tenant(
    runtime: Runtime,
    scopes: list[str] | None = None,
    *,
    with_intake: bool = True,
    name: str = "Acme",
    environment: str | None = None,
) -> TenantFixture:
    tenant = await create_tenant(runtime, name, environment=environment)
    tenant_id = str(tenant["tenantId"])
    key = await create_api_key(runtime, tenant_id, "test", scopes or list(ALL_SCOPES))
    label_id = await add_intake(runtime, tenant_id) if with_intake else None
    remember(str(key["apiKey"]))
    return TenantFixture(tenant_id, str(key["apiKey"]), str(key["keyId"]), label_id)


async def make_staff(runtime: Runtime, role: str = "super_admin") -> StaffFixture:
    """A staff member made as by `gatehouse staff create` (actor `system:cli`)."""
    email = f"{role}.{new_id('x')[-8:]}@example.test"
    ctx = WriteContext.system("cli", runtime.now())
    created = await create_staff_member(runtime, email, role, ctx)
    remember(created["token"])
    remember(created["inviteUrl"].rsplit("/", 1)[1])
    return StaffFixture(
        created["staffId"],
        created["email"],
        created["role"],
        created["token"],
        invite_url=created["inviteUrl"],
    )
