"""Information requests over HTTP (docs/reference/staff-api.md;
docs/reference/tenant-api.md §2.8, §3.1, §5.4; docs/reference/webhooks.md §5.2):
raise, answer, responded, accept, reopen (new round), close, cancel."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from gatehouse.runtime import Runtime
from tests.portal.conftest import Provisioned, provision, sign_in
from tests.support.cases import application_row, make_application, outbox_events
from tests.support.factories import StaffFixture, TenantFixture, make_staff

ITEMS = [
    {"type": "document", "prompt": "Upload your passport"},
    {"type": "question", "prompt": "What is the source of funds?"},
    {"type": "field", "prompt": "VAT number"},
]


@pytest.fixture
async def analyst(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "analyst")


@pytest.fixture
async def applicant(client: httpx.AsyncClient, tenant: TenantFixture) -> Provisioned:
    made = await provision(client, tenant)
    await sign_in(client, made.token)
    return made


async def raise_request(
    client: httpx.AsyncClient,
    staff: StaffFixture,
    client_id: str,
    items: list[dict[str, str]] | None = None,
    comment: str = "We need a little more",
) -> dict[str, Any]:
    response = await client.post(
        f"/staff/v1/applications/{client_id}/info-requests",
        json={"comment": comment, "items": items or ITEMS},
        headers=staff.headers,
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def answer(
    client: httpx.AsyncClient, request_id: str, item_id: str, **body: Any
) -> httpx.Response:
    return await client.post(
        f"/portal/api/info-requests/{request_id}/items/{item_id}/answer", json=body
    )


async def staff_item(
    client: httpx.AsyncClient, staff: StaffFixture, request_id: str, item_id: str, verb: str
) -> httpx.Response:
    return await client.post(
        f"/staff/v1/info-requests/{request_id}/items/{item_id}/{verb}", headers=staff.headers
    )


async def test_raise_returns_the_request_and_moves_to_needs_info(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    analyst: StaffFixture,
    applicant: Provisioned,
) -> None:
    request = await raise_request(client, analyst, applicant.client_id)
    assert request["requestId"].startswith("ir_")
    assert request["seq"] == 1
    assert request["round"] == 1
    assert request["status"] == "open"
    assert request["openItems"] == 3
    assert request["answeredItems"] == 0
    assert request["comment"] == "We need a little more"
    assert request["createdAt"]
    assert request["updatedAt"]
    assert request["respondedAt"] is None
    assert request["closedAt"] is None
    assert request["cancelledAt"] is None
    assert [(i["type"], i["prompt"], i["status"]) for i in request["items"]] == [
        (i["type"], i["prompt"], "open") for i in ITEMS
    ]
    assert all(i["itemId"].startswith("itm_") for i in request["items"])

    read = (
        await client.get(f"/v1/applications/{applicant.client_id}", headers=tenant.headers)
    ).json()
    assert read["status"] == "needs_info"
    assert read["openInfoRequest"]["requestId"] == request["requestId"]
    assert read["openInfoRequest"]["openItems"] == 3
    assert read["decision"]["action"] == "needs_info"
    listed = (
        await client.get(
            f"/v1/applications/{applicant.client_id}/info-requests", headers=tenant.headers
        )
    ).json()
    assert listed["data"] == [request]

    sent = await outbox_events(runtime, applicant.client_id)
    assert [e["type"] for e in sent] == [
        "application.info_request.raised",
        "application.status.changed",
    ]
    raised = sent[0]["data"]
    assert raised["requestId"] == request["requestId"]
    assert raised["requestSeq"] == 1
    assert raised["round"] == 1
    assert raised["openItems"] == 3
    assert raised["comment"] == "We need a little more"
    assert raised["items"] == [
        {"itemId": i["itemId"], "type": i["type"], "prompt": i["prompt"]} for i in request["items"]
    ]
    assert raised["status"] == "needs_info"
    assert raised["previousStatus"] == "pending"
    assert sent[1]["data"]["reason"] == "info_request"


async def test_a_second_request_gets_the_next_seq_and_no_status_change(
    client: httpx.AsyncClient, runtime: Runtime, analyst: StaffFixture, applicant: Provisioned
) -> None:
    await raise_request(client, analyst, applicant.client_id)
    second = await raise_request(client, analyst, applicant.client_id, items=ITEMS[:1])
    assert second["seq"] == 2
    sent = await outbox_events(runtime, applicant.client_id)
    # No status.changed for the second: the status was already needs_info.
    assert [e["type"] for e in sent][2:] == ["application.info_request.raised"]
    assert sent[2]["data"]["previousStatus"] == "needs_info"
    assert sent[2]["data"]["requestSeq"] == 2


@pytest.mark.parametrize(
    "body",
    [
        {"comment": "c", "items": []},
        {"comment": "c"},
        {"comment": "c", "items": [{"type": "selfie", "prompt": "p"}]},
        {"comment": "c", "items": [{"type": "question", "prompt": "  "}]},
        {"items": [{"type": "question", "prompt": "p"}]},
        {"comment": "c", "items": "question"},
    ],
)
async def test_bad_request_bodies_are_invalid_argument_and_change_nothing(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    analyst: StaffFixture,
    body: dict[str, Any],
) -> None:
    case = await make_application(runtime, tenant.tenant_id)
    response = await client.post(
        f"/staff/v1/applications/{case.client_id}/info-requests", json=body, headers=analyst.headers
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-argument"
    assert (await application_row(runtime, case.client_id)).status == "pending"
    assert await outbox_events(runtime, case.client_id) == []


async def test_answering_every_item_responds_and_returns_to_pending(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    analyst: StaffFixture,
    applicant: Provisioned,
) -> None:
    request = await raise_request(client, analyst, applicant.client_id)
    rid = request["requestId"]
    doc_item, question, field = (i["itemId"] for i in request["items"])

    upload = await client.post(
        "/portal/api/documents",
        data={"type": "passport"},
        files={"file": ("p.pdf", b"%PDF-1.4 test", "application/pdf")},
    )
    document_id = upload.json()["documentId"]
    first = await answer(client, rid, doc_item, documentId=document_id)
    assert first.status_code == 200, first.text
    assert first.json()["status"] == "open"
    assert first.json()["openItems"] == 2
    assert first.json()["answeredItems"] == 1
    assert "answer" not in first.json()["items"][0]
    await answer(client, rid, question, answer="Salary")
    assert (await application_row(runtime, applicant.client_id)).status == "needs_info"
    last = await answer(client, rid, field, answer="NL123")
    assert last.json()["status"] == "responded"
    assert last.json()["respondedAt"] is not None
    assert last.json()["openItems"] == 0
    assert last.json()["answeredItems"] == 3
    assert "Salary" not in last.text

    read = (
        await client.get(f"/v1/applications/{applicant.client_id}", headers=tenant.headers)
    ).json()
    assert read["status"] == "pending"
    # The summary stays while staff review the responded request.
    assert read["openInfoRequest"]["requestId"] == rid
    assert read["openInfoRequest"]["answeredItems"] == 3

    sent = await outbox_events(runtime, applicant.client_id)
    assert [e["type"] for e in sent][-2:] == [
        "application.info_request.responded",
        "application.status.changed",
    ]
    responded = sent[-2]["data"]
    assert responded["openItems"] == 0
    assert responded["status"] == "pending"
    assert responded["previousStatus"] == "needs_info"
    assert sent[-1]["data"]["reason"] == "info_request"
    assert "Salary" not in str(sent)


async def test_document_id_rules(
    client: httpx.AsyncClient, analyst: StaffFixture, applicant: Provisioned
) -> None:
    request = await raise_request(client, analyst, applicant.client_id)
    rid = request["requestId"]
    doc_item, question, _ = (i["itemId"] for i in request["items"])
    unknown = await answer(client, rid, doc_item, documentId="doc_nope")
    assert unknown.status_code == 400
    assert unknown.json()["error"]["details"][0]["field"] == "documentId"
    upload = await client.post(
        "/portal/api/documents",
        data={"type": "passport"},
        files={"file": ("p.png", b"\x89PNG\r\n\x1a\n" + bytes(16), "image/png")},
    )
    on_question = await answer(
        client, rid, question, documentId=upload.json()["documentId"], answer="x"
    )
    assert on_question.status_code == 400
    empty = await answer(client, rid, question)
    assert empty.status_code == 400
    assert empty.json()["error"]["details"][0]["field"] == "answer"
    text_for_document = await answer(client, rid, doc_item, answer="Sent by post")
    assert text_for_document.status_code == 200


async def test_accept_and_reopen_start_a_new_round(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    analyst: StaffFixture,
    applicant: Provisioned,
) -> None:
    request = await raise_request(client, analyst, applicant.client_id, items=ITEMS[1:])
    rid = request["requestId"]
    first, second = (i["itemId"] for i in request["items"])

    not_answered = await staff_item(client, analyst, rid, first, "accept")
    assert not_answered.status_code == 400
    assert not_answered.json()["error"]["code"] == "failed-precondition"
    cannot_reopen = await staff_item(client, analyst, rid, first, "reopen")
    assert cannot_reopen.status_code == 400

    await answer(client, rid, first, answer="a")
    await answer(client, rid, second, answer="b")
    accepted = await staff_item(client, analyst, rid, first, "accept")
    assert accepted.status_code == 200
    assert [i["status"] for i in accepted.json()["items"]] == ["accepted", "answered"]
    assert accepted.json()["status"] == "responded"
    assert (await answer(client, rid, first, answer="again")).status_code == 400

    reopened = await staff_item(client, analyst, rid, second, "reopen")
    assert reopened.status_code == 200
    body = reopened.json()
    assert body["status"] == "open"
    assert body["round"] == 2
    assert body["openItems"] == 1
    assert [i["status"] for i in body["items"]] == ["accepted", "reopened"]
    assert (await application_row(runtime, applicant.client_id)).status == "needs_info"
    sent = await outbox_events(runtime, applicant.client_id)
    assert sent[-1]["type"] == "application.status.changed"
    assert sent[-1]["data"]["status"] == "needs_info"
    assert sent[-1]["data"]["previousStatus"] == "pending"
    assert sent[-1]["data"]["reason"] == "info_request"

    # Reopening the accepted item too raises the round by exactly one again.
    again = await staff_item(client, analyst, rid, first, "reopen")
    assert again.json()["round"] == 3
    await answer(client, rid, first, answer="a2")
    done = await answer(client, rid, second, answer="b2")
    assert done.json()["status"] == "responded"
    assert done.json()["round"] == 3
    read = (
        await client.get(f"/v1/applications/{applicant.client_id}", headers=tenant.headers)
    ).json()
    assert read["status"] == "pending"
    assert read["openInfoRequest"]["round"] == 3
    responded = [
        e
        for e in await outbox_events(runtime, applicant.client_id)
        if e["type"] == "application.info_request.responded"
    ]
    assert [e["data"]["round"] for e in responded] == [1, 3]


async def test_unknown_request_or_item_is_404(
    client: httpx.AsyncClient, analyst: StaffFixture, applicant: Provisioned
) -> None:
    request = await raise_request(client, analyst, applicant.client_id)
    rid = request["requestId"]
    assert (await staff_item(client, analyst, rid, "itm_nope", "accept")).status_code == 404
    assert (await staff_item(client, analyst, "ir_nope", "itm_x", "reopen")).status_code == 404
    closed = await client.post("/staff/v1/info-requests/ir_nope/close", headers=analyst.headers)
    assert closed.status_code == 404
    assert (await answer(client, rid, "itm_nope", answer="x")).status_code == 404
    assert (await answer(client, "ir_nope", "itm_x", answer="x")).status_code == 404


async def test_another_applications_request_is_404_in_the_portal(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    analyst: StaffFixture,
    applicant: Provisioned,
) -> None:
    other = await make_application(runtime, tenant.tenant_id)
    foreign = await raise_request(client, analyst, other.client_id)
    response = await answer(client, foreign["requestId"], foreign["items"][0]["itemId"], answer="x")
    assert response.status_code == 404


async def test_close_emits_closed_and_returns_to_pending(
    client: httpx.AsyncClient, runtime: Runtime, analyst: StaffFixture, applicant: Provisioned
) -> None:
    request = await raise_request(client, analyst, applicant.client_id)
    closed = await client.post(
        f"/staff/v1/info-requests/{request['requestId']}/close", headers=analyst.headers
    )
    assert closed.status_code == 200
    assert closed.json()["status"] == "closed"
    assert closed.json()["closedAt"] is not None
    assert (await application_row(runtime, applicant.client_id)).status == "pending"
    sent = await outbox_events(runtime, applicant.client_id)
    assert [e["type"] for e in sent][-2:] == [
        "application.info_request.closed",
        "application.status.changed",
    ]
    assert sent[-2]["data"]["requestId"] == request["requestId"]
    again = await client.post(
        f"/staff/v1/info-requests/{request['requestId']}/close", headers=analyst.headers
    )
    assert again.status_code == 400
    assert again.json()["error"]["code"] == "failed-precondition"
    item = request["items"][1]["itemId"]
    assert (await answer(client, request["requestId"], item, answer="late")).status_code == 400


async def test_cancel_keeps_needs_info_while_another_request_is_open(
    client: httpx.AsyncClient, runtime: Runtime, analyst: StaffFixture, applicant: Provisioned
) -> None:
    first = await raise_request(client, analyst, applicant.client_id)
    await raise_request(client, analyst, applicant.client_id, items=ITEMS[1:2])
    cancelled = await client.post(
        f"/staff/v1/info-requests/{first['requestId']}/cancel", headers=analyst.headers
    )
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    assert cancelled.json()["cancelledAt"] is not None
    assert (await application_row(runtime, applicant.client_id)).status == "needs_info"
    types = [e["type"] for e in await outbox_events(runtime, applicant.client_id)]
    assert "application.info_request.closed" not in types
    assert (
        await client.post(
            f"/staff/v1/info-requests/{first['requestId']}/close", headers=analyst.headers
        )
    ).status_code == 400


async def test_raise_from_hold_and_from_active(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, analyst: StaffFixture
) -> None:
    for status in ("hold", "active", "rejected", "pending_approval"):
        case = await make_application(runtime, tenant.tenant_id, status=status)
        await raise_request(client, analyst, case.client_id)
        assert (await application_row(runtime, case.client_id)).status == "needs_info"
        sent = await outbox_events(runtime, case.client_id)
        assert sent[1]["data"]["previousStatus"] == status
