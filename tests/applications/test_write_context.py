"""One write context per request on every surface (docs/architecture.md, "Who is acting").

Each surface builds the context from its own principal; the service records the audit entry
through it. The entries below name who acted, the tenant of what they acted on, and the
request id the answer carried, whichever surface the write came through.
"""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
from sqlalchemy import select

from gatehouse.audit.context import WriteContext
from gatehouse.domain.principals import ALL_SCOPES, StaffPrincipal, TenantPrincipal
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry
from tests.pages.helpers import dashboard_sign_in
from tests.portal.conftest import provision, sign_in
from tests.support.factories import StaffFixture, TenantFixture, add_intake, make_staff

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_the_context_names_the_principal_and_its_tenant() -> None:
    key = TenantPrincipal("ten_1", "key1", frozenset(ALL_SCOPES), "active")
    staff = StaffPrincipal("stf_1", "a@x.test", "analyst")
    assert WriteContext.of(key, "req_1", NOW) == WriteContext("api_key:key1", "ten_1", "req_1", NOW)
    assert WriteContext.of(staff, "req_2", NOW) == WriteContext("staff:stf_1", None, "req_2", NOW)
    assert WriteContext.system("cli", NOW) == WriteContext("system:cli", None, None, NOW)


def test_an_entry_takes_the_context_tenant_unless_the_target_names_one() -> None:
    staff = WriteContext("staff:stf_1", None, "req_1", NOW)
    values = staff.audit_values("intake.create", "lbl_1", tenant_id="ten_9")
    assert {k: values[k] for k in ("actor", "action", "target", "tenant_id", "request_id")} == {
        "actor": "staff:stf_1",
        "action": "intake.create",
        "target": "lbl_1",
        "tenant_id": "ten_9",
        "request_id": "req_1",
    }
    assert values["at"] == NOW
    assert values["application_id"] is None
    applicant = WriteContext("applicant:mem_1", "ten_1", None, NOW)
    assert applicant.audit_values("application.submit", "app_1", "app_1")["tenant_id"] == "ten_1"


async def entry(runtime: Runtime, action: str) -> AuditEntry:
    async with runtime.db.read() as session:
        [found] = (
            await session.scalars(select(AuditEntry).where(AuditEntry.action == action))
        ).all()
    return found


async def test_every_surface_records_who_acted_and_the_request_id(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, staff: StaffFixture
) -> None:
    await add_intake(runtime, tenant.tenant_id, "KYC", order=0)
    provisioned = await provision(client, tenant)
    client_id = provisioned.client_id

    # /v1: an API key, bound to its tenant.
    locked = await client.post(f"/v1/applications/{client_id}/unlock", headers=tenant.headers)
    assert locked.status_code == 200
    unlock = await entry(runtime, "application.unlock")
    assert (unlock.actor, unlock.tenant_id) == (f"api_key:{tenant.key_id}", tenant.tenant_id)
    assert unlock.request_id == locked.headers["service-request-id"]

    # /staff/v1: a staff member, the tenant named by the target (the intake is audited by
    # the intakes service, no longer by the route).
    made = await client.post(
        f"/staff/v1/tenants/{tenant.tenant_id}/intakes",
        json={"name": "KYB", "checklist": []},
        headers=staff.headers,
    )
    assert made.status_code == 201, made.text
    intake = await entry(runtime, "intake.create")
    assert (intake.actor, intake.tenant_id) == (f"staff:{staff.staff_id}", tenant.tenant_id)
    assert intake.target == made.json()["labelId"]
    assert intake.request_id == made.headers["service-request-id"]

    # /portal: the applicant's session.
    await sign_in(client, provisioned.token)
    submitted = await client.post("/portal/api/submit")
    assert submitted.status_code == 200
    submit = await entry(runtime, "application.submit")
    assert submit.actor.startswith("applicant:mem_")
    assert (submit.tenant_id, submit.application_id) == (tenant.tenant_id, client_id)
    assert submit.request_id == submitted.headers["service-request-id"]

    # /dashboard: a staff member's form post, through the same information-request service
    # as the staff API.
    client.cookies.clear()
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    raised = await client.post(
        f"/dashboard/applications/{client_id}/info-requests",
        data={
            "csrf_token": csrf,
            "comment": "More, please",
            "item_type_0": "question",
            "item_prompt_0": "Why?",
        },
    )
    assert raised.status_code == 303, raised.text
    raise_entry = await entry(runtime, "info_request.raise")
    assert (raise_entry.actor, raise_entry.tenant_id) == (
        f"staff:{analyst.staff_id}",
        tenant.tenant_id,
    )
    assert raise_entry.application_id == client_id
    assert raise_entry.request_id == raised.headers["service-request-id"]
