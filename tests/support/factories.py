"""Creating tenants, keys, staff and intakes for tests, through the real services."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gatehouse.http.auth import ALL_SCOPES
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.staff.accounts import create_api_key, create_staff_member, create_tenant
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
) -> TenantFixture:
    tenant = await create_tenant(runtime, name)
    tenant_id = str(tenant["tenantId"])
    key = await create_api_key(runtime, tenant_id, "test", scopes or list(ALL_SCOPES))
    label_id = await add_intake(runtime, tenant_id) if with_intake else None
    remember(str(key["apiKey"]))
    return TenantFixture(tenant_id, str(key["apiKey"]), str(key["keyId"]), label_id)


async def make_staff(runtime: Runtime, role: str = "super_admin") -> StaffFixture:
    created = await create_staff_member(runtime, f"{role}.{new_id('x')[-8:]}@example.test", role)
    remember(created["token"])
    return StaffFixture(created["staffId"], created["email"], created["role"], created["token"])
