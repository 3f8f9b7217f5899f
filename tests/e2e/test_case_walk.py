"""The full case walk over HTTP: provision → link → redeem →
staff raise an information request → the applicant answers → responded and
pending → an analyst approves → the same analyst's countersign is refused →
an MLRO countersigns → active; with the decision history, the outbox events
and the tenant read checked at each step."""

from __future__ import annotations

from typing import Any

import httpx

from gatehouse.runtime import Runtime
from tests.support.cases import outbox_events
from tests.support.factories import TenantFixture, make_staff


async def test_case_walk(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    analyst = await make_staff(runtime, "analyst")
    mlro = await make_staff(runtime, "mlro")

    async def tenant_read() -> dict[str, Any]:
        response = await client.get(f"/v1/applications/{client_id}", headers=tenant.headers)
        assert response.status_code == 200
        body: dict[str, Any] = response.json()
        return body

    async def history() -> list[tuple[str, str, str, str]]:
        response = await client.get(
            f"/v1/applications/{client_id}/decisions", headers=tenant.headers
        )
        assert response.status_code == 200
        return [
            (d["action"], d["fromStatus"], d["toStatus"], d["byRole"])
            for d in response.json()["data"]
        ]

    async def event_types() -> list[str]:
        return [e["type"] for e in await outbox_events(runtime, client_id)]

    # 1. Provision with a sign-in link.
    created = await client.post(
        "/v1/login-sessions",
        json={"email": " Owner@Example.TEST ", "externalRef": "walk-1", "companyName": "Walk Ltd"},
        headers=tenant.headers,
    )
    assert created.status_code == 201
    client_id = created.json()["clientId"]
    assert created.json()["status"] == "pending"
    token = created.json()["loginUrl"].rsplit("/", 1)[1]
    read = await tenant_read()
    assert read["status"] == "pending"
    assert read["decision"] is None
    assert read["openInfoRequest"] is None
    assert "submittedAt" not in read
    assert [m["email"] for m in read["members"]] == ["owner@example.test"]

    # 2. Redeem the link: a cookie session.
    redeemed = await client.post(f"/portal/login/{token}")
    assert redeemed.status_code == 303
    assert redeemed.headers["location"] == "/portal/form-parser"
    me = (await client.get("/portal/api/me")).json()
    assert me["clientId"] == client_id
    assert me["email"] == "owner@example.test"
    assert (await client.post("/portal/api/submit")).status_code == 200
    assert "submittedAt" in await tenant_read()

    # 3. Staff raise an information request.
    raised = await client.post(
        f"/staff/v1/applications/{client_id}/info-requests",
        json={
            "comment": "Two things, please",
            "items": [
                {"type": "question", "prompt": "Source of funds?"},
                {"type": "document", "prompt": "Proof of address"},
            ],
        },
        headers=analyst.headers,
    )
    assert raised.status_code == 201
    request = raised.json()
    read = await tenant_read()
    assert read["status"] == "needs_info"
    assert read["openInfoRequest"]["requestId"] == request["requestId"]
    assert read["openInfoRequest"]["openItems"] == 2
    assert await history() == [("needs_info", "pending", "needs_info", "analyst")]

    # 4. The applicant answers; the request is responded and the case pending.
    question, document_item = (i["itemId"] for i in request["items"])
    answered = await client.post(
        f"/portal/api/info-requests/{request['requestId']}/items/{question}/answer",
        json={"answer": "Savings"},
    )
    assert answered.json()["status"] == "open"
    assert (await tenant_read())["status"] == "needs_info"
    upload = await client.post(
        "/portal/api/documents",
        data={"type": "proof_of_address"},
        files={"file": ("bill.pdf", b"%PDF-1.7 bill", "application/pdf")},
    )
    assert upload.status_code == 201
    answered = await client.post(
        f"/portal/api/info-requests/{request['requestId']}/items/{document_item}/answer",
        json={"documentId": upload.json()["documentId"]},
    )
    assert answered.json()["status"] == "responded"
    read = await tenant_read()
    assert read["status"] == "pending"
    assert read["openInfoRequest"]["openItems"] == 0
    assert read["openInfoRequest"]["answeredItems"] == 2
    requests = (
        await client.get(f"/v1/applications/{client_id}/info-requests", headers=tenant.headers)
    ).json()["data"]
    assert requests[0]["status"] == "responded"
    assert requests[0]["respondedAt"]

    # 5. An analyst proposes approval.
    proposed = await client.post(
        f"/staff/v1/applications/{client_id}/decisions",
        json={"action": "approve", "comment": "All good"},
        headers=analyst.headers,
    )
    assert proposed.status_code == 200
    read = await tenant_read()
    assert read["status"] == "pending_approval"
    assert read["decision"]["action"] == "approve"
    assert read["decision"]["comment"] == "All good"

    # 6. The same analyst cannot countersign.
    refused = await client.post(
        f"/staff/v1/applications/{client_id}/decisions",
        json={"action": "countersign"},
        headers=analyst.headers,
    )
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "permission-denied"
    assert (await tenant_read())["status"] == "pending_approval"

    # 7. An MLRO countersigns: active.
    signed = await client.post(
        f"/staff/v1/applications/{client_id}/decisions",
        json={"action": "countersign"},
        headers=mlro.headers,
    )
    assert signed.status_code == 200
    read = await tenant_read()
    assert read["status"] == "active"
    assert read["decision"] == {
        "action": "approved",
        "fromStatus": "pending_approval",
        "toStatus": "active",
        "byRole": "mlro",
        "comment": None,
        "at": read["decision"]["at"],
    }
    assert await history() == [
        ("approved", "pending_approval", "active", "mlro"),
        ("approve", "pending", "pending_approval", "analyst"),
        ("needs_info", "pending", "needs_info", "analyst"),
    ]

    # The outbox: every transition, sequence strictly increasing, statuses chained.
    sent = await outbox_events(runtime, client_id)
    assert [e["type"] for e in sent] == [
        "application.submitted",
        "application.info_request.raised",
        "application.status.changed",
        "application.info_request.responded",
        "application.status.changed",
        "application.decision.proposed",
        "application.status.changed",
        "application.decision.approved",
        "application.status.changed",
    ]
    sequences = [e["data"]["sequence"] for e in sent]
    assert sequences == sorted(sequences)
    assert len(set(sequences)) == len(sequences)
    assert len({e["id"] for e in sent}) == len(sent)
    changes = [
        (e["data"]["previousStatus"], e["data"]["status"], e["data"]["reason"])
        for e in sent
        if e["type"] == "application.status.changed"
    ]
    assert changes == [
        ("pending", "needs_info", "info_request"),
        ("needs_info", "pending", "info_request"),
        ("pending", "pending_approval", "decision"),
        ("pending_approval", "active", "decision"),
    ]
    assert sent[0]["data"]["previousStatus"] is None
    assert all(e["data"]["clientId"] == client_id for e in sent)
    assert all(e["data"]["externalRef"] == "walk-1" for e in sent)
    assert "Savings" not in str(sent)
    assert await event_types() == [e["type"] for e in sent]
