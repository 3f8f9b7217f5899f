"""Retention and legal holds (docs/operations.md, "Retention"; docs/reference/staff-api.md
§16.5, §16.6), on SQLite and PostgreSQL: the tenant setting, the sweep through the one erasure
path, the plan, and holds."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from gatehouse.retention import plan, run_retention_sweep
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import Tenant
from gatehouse.sweeps import run_sweeps_once, sweep_jobs
from tests.support.audit import audit_actions
from tests.support.cases import application_row, make_application
from tests.support.factories import StaffFixture, TenantFixture, make_staff


async def set_retention(
    client: httpx.AsyncClient, staff: StaffFixture, tenant_id: str, retention: object
) -> httpx.Response:
    return await client.patch(
        f"/staff/v1/tenants/{tenant_id}", json={"retention": retention}, headers=staff.headers
    )


async def age(runtime: Runtime, client_id: str, days: int, **values: object) -> None:
    """Move an application's times `days` into the past (and set other columns)."""
    past = runtime.now() - timedelta(days=days)
    async with runtime.db.write() as session:
        row = await session.get_one(Application, client_id)
        row.updated_at = row.status_changed_at = past
        for name, value in values.items():
            setattr(row, name, value)


@pytest.mark.parametrize(
    ("retention", "field"),
    [
        ({"rejectedDays": 0}, "retention.rejectedDays"),
        ({"abandonedDays": 3651}, "retention.abandonedDays"),
        ({"rejectedDays": "30"}, "retention.rejectedDays"),
        ({"rejectedDays": True}, "retention.rejectedDays"),
        ({"keepForever": 1}, "retention.keepForever"),
        ([30], "retention"),
    ],
)
async def test_bad_retention_is_refused_naming_the_field_and_changes_nothing(
    client: httpx.AsyncClient,
    staff: StaffFixture,
    tenant: TenantFixture,
    retention: object,
    field: str,
) -> None:
    assert (await set_retention(client, staff, tenant.tenant_id, {"rejectedDays": 30})).is_success
    answer = await set_retention(client, staff, tenant.tenant_id, retention)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "invalid-argument"
    assert field in str(error)
    read = await client.get(f"/staff/v1/tenants/{tenant.tenant_id}", headers=staff.headers)
    assert read.json()["retention"] == {"rejectedDays": 30, "abandonedDays": None}


async def test_retention_is_set_changed_field_by_field_and_cleared(
    client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture
) -> None:
    answer = await set_retention(client, staff, tenant.tenant_id, {"rejectedDays": 1})
    assert answer.json()["retention"] == {"rejectedDays": 1, "abandonedDays": None}
    answer = await set_retention(client, staff, tenant.tenant_id, {"abandonedDays": 3650})
    assert answer.json()["retention"] == {"rejectedDays": 1, "abandonedDays": 3650}
    answer = await set_retention(client, staff, tenant.tenant_id, None)
    assert answer.json()["retention"] == {"rejectedDays": None, "abandonedDays": None}


async def test_the_sweep_erases_only_what_retention_lets_go(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture, tenant: TenantFixture
) -> None:
    await set_retention(client, staff, tenant.tenant_id, {"rejectedDays": 30, "abandonedDays": 90})
    old_rejected = await make_application(runtime, tenant.tenant_id, status="rejected")
    await age(runtime, old_rejected.client_id, 31)
    new_rejected = await make_application(runtime, tenant.tenant_id, status="rejected")
    await age(runtime, new_rejected.client_id, 29)
    abandoned = await make_application(runtime, tenant.tenant_id)
    await age(runtime, abandoned.client_id, 91)
    submitted = await make_application(runtime, tenant.tenant_id)
    await age(runtime, submitted.client_id, 400, submitted_at=runtime.now() - timedelta(days=400))
    active = await make_application(runtime, tenant.tenant_id, status="active")
    await age(runtime, active.client_id, 4000)
    held = await make_application(runtime, tenant.tenant_id, status="rejected")
    await age(runtime, held.client_id, 400)
    mlro = await make_staff(runtime, "mlro")
    placed = await client.post(
        f"/staff/v1/applications/{held.client_id}/legal-hold",
        json={"hold": True, "reason": "Regulator's inquiry"},
        headers=mlro.headers,
    )
    assert placed.json() == {
        "clientId": held.client_id,
        "legalHold": True,
        "reason": "Regulator's inquiry",
    }
    planned = await plan(runtime.db, runtime.now())
    assert {(p["clientId"], p["rule"]) for p in planned} == {
        (old_rejected.client_id, "rejected"),
        (abandoned.client_id, "abandoned"),
    }
    assert await run_retention_sweep(runtime) == 2
    for case, erased in (
        (old_rejected, True),
        (abandoned, True),
        (new_rejected, False),
        (submitted, False),
        (active, False),
        (held, False),
    ):
        assert ((await application_row(runtime, case.client_id)).erased_at is not None) == erased
    erasures = [a for a in await audit_actions(runtime, "application.erase")]
    assert sorted(target for _action, _actor, target in erasures) == sorted(
        [old_rejected.client_id, abandoned.client_id]
    )
    assert {actor for _action, actor, _target in erasures} == {"system:retention"}
    assert await run_retention_sweep(runtime) == 0
    # A plan for a later date sees what will fall due then.
    later = await plan(runtime.db, runtime.now() + timedelta(days=2))
    assert [p["clientId"] for p in later] == [new_rejected.client_id]


async def test_a_held_application_cannot_be_erased_until_released(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture, tenant: TenantFixture
) -> None:
    case = await make_application(runtime, tenant.tenant_id)
    path = f"/staff/v1/applications/{case.client_id}/legal-hold"
    analyst = await make_staff(runtime, "analyst")
    refused = await client.post(path, json={"hold": True, "reason": "x"}, headers=analyst.headers)
    assert refused.status_code == 403
    for body, field in (
        ({"hold": True}, "reason"),
        ({"hold": True, "reason": "   "}, "reason"),
        ({"hold": "yes", "reason": "r"}, "hold"),
        ({"reason": "r"}, "hold"),
    ):
        answer = await client.post(path, json=body, headers=staff.headers)
        assert answer.status_code == 400, body
        assert field in str(answer.json()["error"])
    assert await client.post(
        path, json={"hold": True, "reason": "Court order"}, headers=staff.headers
    )
    erase = f"/staff/v1/applications/{case.client_id}/erase"
    answer = await client.post(erase, headers=staff.headers)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "failed-precondition"
    assert (await application_row(runtime, case.client_id)).erased_at is None
    released = await client.post(
        path, json={"hold": False, "reason": "Closed"}, headers=staff.headers
    )
    assert released.json()["legalHold"] is False
    assert (await client.post(erase, headers=staff.headers)).status_code == 200
    actions = [a[0] for a in await audit_actions(runtime, "application.legal_hold.%")]
    assert actions == ["application.legal_hold.placed", "application.legal_hold.released"]


async def test_the_housekeeping_sweeps_run_retention(
    runtime: Runtime, tenant: TenantFixture
) -> None:
    assert "retention" in [name for name, _ in sweep_jobs()]
    async with runtime.db.write() as session:
        row = await session.get_one(Tenant, tenant.tenant_id)
        row.retention_abandoned_days = 1
    case = await make_application(runtime, tenant.tenant_id)
    await age(runtime, case.client_id, 2)
    await run_sweeps_once(runtime)
    assert (await application_row(runtime, case.client_id)).erased_at is not None
