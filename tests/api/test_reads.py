"""Application reads (docs/reference/tenant-api.md §2.4, §2.9, §5.3, §5.5, §5.12, §5.14;
docs/reference/tenant-api.md §5; docs/reference/tenant-api.md).
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import httpx
from sqlalchemy import update

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Intake
from gatehouse.storage.tables.verification import Customer, VerificationClient
from gatehouse.timeutil import format_ts
from tests.api.support import (
    add_decision,
    add_document,
    add_info_request,
    erase,
    provision,
)
from tests.support.factories import TenantFixture, add_intake, make_tenant

READ_PATHS = ("", "/info-requests", "/decisions", "/checklist", "/documents")


async def test_application_read_shape(client: httpx.AsyncClient, tenant: TenantFixture) -> None:
    created = await provision(client, tenant, "ann@x.test", externalRef="r-1", companyName="Acme")
    read = await client.get(f"/v1/applications/{created['clientId']}", headers=tenant.headers)
    assert read.status_code == 200
    assert read.json() == created
    assert set(read.json()) == {
        "clientId",
        "externalRef",
        "companyName",
        "labelId",
        "applicantEmail",
        "status",
        "createdAt",
        "updatedAt",
        "decision",
        "openInfoRequest",
        "members",
    }


async def test_read_shows_latest_decision_rejection_and_submission(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    now = runtime.now()
    await add_decision(runtime, cid, "hold", "hold", now, comment="waiting")
    await add_decision(
        runtime,
        cid,
        "reject",
        "rejected",
        now + timedelta(seconds=1),
        from_status="hold",
        by_role="mlro",
        comment="sorry",
        rejection_reason="Sanctions match",
    )
    submitted = now + timedelta(seconds=2)
    async with runtime.db.write() as session:
        await session.execute(
            update(Application).where(Application.id == cid).values(submitted_at=submitted)
        )
    read = (await client.get(f"/v1/applications/{cid}", headers=tenant.headers)).json()
    assert read["status"] == "rejected"
    assert read["rejectionReason"] == "Sanctions match"
    assert read["submittedAt"] == format_ts(submitted)
    assert read["decision"] == {
        "action": "reject",
        "fromStatus": "hold",
        "toStatus": "rejected",
        "byRole": "mlro",
        "comment": "sorry",
        "at": format_ts(now + timedelta(seconds=1)),
    }
    await add_decision(runtime, cid, "hold", "hold", now + timedelta(seconds=3))
    read = (await client.get(f"/v1/applications/{cid}", headers=tenant.headers)).json()
    assert "rejectionReason" not in read


async def test_decisions_newest_first_ties_by_id_desc_without_staff_identity(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    now = runtime.now()
    first = await add_decision(runtime, cid, "hold", "hold", now)
    tie_a = await add_decision(
        runtime, cid, "approve", "pending_approval", now + timedelta(seconds=1), comment="A"
    )
    tie_b = await add_decision(
        runtime, cid, "approve", "pending_approval", now + timedelta(seconds=1), comment="B"
    )
    response = await client.get(f"/v1/applications/{cid}/decisions", headers=tenant.headers)
    assert response.status_code == 200
    data = response.json()["data"]
    assert len(data) == 3
    assert [d["action"] for d in data] == ["approve", "approve", "hold"]
    assert data[2]["at"] == format_ts(now)
    assert set(data[0]) == {"action", "fromStatus", "toStatus", "byRole", "comment", "at"}
    assert "stf_secret" not in response.text
    # Ties on time: higher id first (docs/reference/tenant-api.md).
    by_id = {tie_a: "A", tie_b: "B"}
    assert [d["comment"] for d in data[:2]] == [by_id[i] for i in sorted(by_id, reverse=True)]
    assert first != tie_a
    read = (await client.get(f"/v1/applications/{cid}", headers=tenant.headers)).json()
    assert read["decision"] == data[0]
    empty = (await provision(client, tenant, "b@x.test"))["clientId"]
    assert (
        await client.get(f"/v1/applications/{empty}/decisions", headers=tenant.headers)
    ).json() == {"data": []}


async def test_info_requests_highest_seq_first_with_counts_and_open_summary(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    assert (
        await client.get(f"/v1/applications/{cid}/info-requests", headers=tenant.headers)
    ).json() == {"data": []}
    closed = await add_info_request(runtime, cid, 1, "closed", ["accepted"])
    current = await add_info_request(
        runtime, cid, 2, "open", ["open", "answered", "reopened", "accepted"]
    )
    cancelled = await add_info_request(runtime, cid, 3, "cancelled", ["open"])
    response = await client.get(f"/v1/applications/{cid}/info-requests", headers=tenant.headers)
    data = response.json()["data"]
    assert [r["requestId"] for r in data] == [cancelled, current, closed]
    request = data[1]
    assert request["seq"] == 2
    assert request["round"] == 1
    assert request["status"] == "open"
    assert request["openItems"] == 2
    assert request["answeredItems"] == 1
    assert request["comment"] == "Please send"
    for field in ("createdAt", "updatedAt", "respondedAt", "closedAt", "cancelledAt"):
        assert field in request
    assert request["respondedAt"] is None
    # Items keep the staff's order (position), not insertion order.
    assert [i["prompt"] for i in request["items"]] == [
        "prompt 3",
        "prompt 2",
        "prompt 1",
        "prompt 0",
    ]
    assert set(request["items"][0]) == {"itemId", "type", "prompt", "status"}
    assert "secret answer" not in response.text
    read = (await client.get(f"/v1/applications/{cid}", headers=tenant.headers)).json()
    assert read["openInfoRequest"] == {
        "requestId": current,
        "seq": 2,
        "round": 1,
        "openItems": 2,
        "answeredItems": 1,
        "at": request["updatedAt"],
    }


async def test_open_info_request_is_the_highest_open_or_responded(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    await add_info_request(runtime, cid, 1, "open", ["open"])
    responded = await add_info_request(runtime, cid, 2, "responded", ["answered"])
    await add_info_request(runtime, cid, 3, "closed", ["accepted"])
    read = (await client.get(f"/v1/applications/{cid}", headers=tenant.headers)).json()
    assert read["openInfoRequest"]["requestId"] == responded
    assert read["openInfoRequest"]["openItems"] == 0
    assert read["openInfoRequest"]["answeredItems"] == 1


async def test_documents_metadata_only(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    doc = await add_document(runtime, cid, "passport")
    response = await client.get(f"/v1/applications/{cid}/documents", headers=tenant.headers)
    assert response.status_code == 200
    [item] = response.json()["data"]
    assert item["documentId"] == doc
    assert item["type"] == "passport"
    assert item["status"] == "uploaded"
    assert item["contentType"] == "application/pdf"
    assert item["sizeBytes"] == 1234
    assert set(item) == {"documentId", "type", "status", "contentType", "sizeBytes", "uploadedAt"}
    assert "private-name" not in response.text
    assert "secret" not in response.text


async def test_checklist_satisfaction_per_kind(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    label = await add_intake(
        runtime,
        tenant.tenant_id,
        "Full",
        checklist=[
            {"key": "passport", "label": "Passport", "kind": "document", "required": True},
            {"key": "utility_bill", "label": "Bill", "kind": "document", "required": False},
            {"key": "profile", "label": "Profile form", "kind": "form", "required": True},
            {"key": "idv", "label": "Identity check", "kind": "verification", "required": True},
        ],
    )
    cid = (await provision(client, tenant, labelId=label))["clientId"]
    url = f"/v1/applications/{cid}/checklist"
    data = (await client.get(url, headers=tenant.headers)).json()["data"]
    assert [
        (i["key"], i["kind"], i["required"], i["satisfied"], i["satisfiedAt"]) for i in data
    ] == [
        ("passport", "document", True, False, None),
        ("utility_bill", "document", False, False, None),
        ("profile", "form", True, False, None),
        ("idv", "verification", True, False, None),
    ]
    assert data[0]["label"] == "Passport"
    uploaded = runtime.now()
    await add_document(runtime, cid, "passport", uploaded)
    await add_document(runtime, cid, "passport", uploaded + timedelta(seconds=5))
    await add_document(runtime, cid, "something_else", uploaded)
    submitted = uploaded + timedelta(seconds=1)
    accepted = uploaded + timedelta(seconds=2)
    async with runtime.db.write() as session:
        await session.execute(
            update(Application).where(Application.id == cid).values(submitted_at=submitted)
        )
        client_uuid = str(uuid.uuid4())
        session.add(
            VerificationClient(
                uuid=client_uuid,
                name="v",
                secret_hash="x",
                created_at=uploaded,
                updated_at=uploaded,
            )
        )
        await session.flush()
        session.add(
            Customer(
                uuid=str(uuid.uuid4()),
                client_uuid=client_uuid,
                email="a@x.test",
                phone="1",
                status=6,
                application_id=cid,
                accepted_at=accepted,
                created_at=uploaded,
                updated_at=uploaded,
            )
        )
    data = (await client.get(url, headers=tenant.headers)).json()["data"]
    assert [(i["key"], i["satisfied"], i["satisfiedAt"]) for i in data] == [
        ("passport", True, format_ts(uploaded)),
        ("utility_bill", False, None),
        ("profile", True, format_ts(submitted)),
        ("idv", True, format_ts(accepted)),
    ]


async def test_intakes_list_attached_sorted_by_order_then_creation(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    bare = await make_tenant(runtime, with_intake=False)
    assert (await client.get("/v1/intakes", headers=bare.headers)).json() == {"data": []}
    b = await add_intake(runtime, bare.tenant_id, "B", order=2)
    await add_intake(runtime, bare.tenant_id, "Detached", order=0, attached=False)
    a_null = await add_intake(runtime, bare.tenant_id, "Null", order=None)
    a_zero = await add_intake(runtime, bare.tenant_id, "Zero", order=0)
    neg = await add_intake(runtime, bare.tenant_id, "Neg", order=-1)
    response = await client.get("/v1/intakes", headers=bare.headers)
    assert response.status_code == 200
    data = response.json()["data"]
    assert [i["labelId"] for i in data] == [neg, a_null, a_zero, b]
    assert data[1] == {"labelId": a_null, "name": "Null", "order": None}
    # Detaching hides a label.
    async with runtime.db.write() as session:
        await session.execute(update(Intake).where(Intake.id == b).values(attached=False))
    data = (await client.get("/v1/intakes", headers=bare.headers)).json()["data"]
    assert b not in [i["labelId"] for i in data]


async def test_reads_need_read_scope(client: httpx.AsyncClient, runtime: Runtime) -> None:
    writer = await make_tenant(runtime, ["applications:write"])
    cid = (await provision(client, writer))["clientId"]
    for suffix in READ_PATHS:
        response = await client.get(f"/v1/applications/{cid}{suffix}", headers=writer.headers)
        assert response.status_code == 403
        assert "applications:read" in response.json()["error"]["message"]
    assert (await client.get("/v1/intakes", headers=writer.headers)).status_code == 403


async def test_erased_and_missing_read_as_the_same_404(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    await erase(runtime, cid)
    for suffix in READ_PATHS:
        erased = await client.get(f"/v1/applications/{cid}{suffix}", headers=tenant.headers)
        missing = await client.get(f"/v1/applications/app_missing{suffix}", headers=tenant.headers)
        assert erased.status_code == missing.status_code == 404
        assert erased.json()["error"]["code"] == missing.json()["error"]["code"] == "not-found"
        assert erased.json()["error"]["message"] == missing.json()["error"]["message"]


async def test_trailing_slash_is_tolerated(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    assert (await client.get(f"/v1/applications/{cid}/", headers=tenant.headers)).status_code == 200
    assert (await client.get("/v1/intakes/", headers=tenant.headers)).status_code == 200
