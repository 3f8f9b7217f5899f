"""Each item of the requests page keeps its draft without scripts (docs/reference/portal.md
"Drafts"): the page is one form, each item's button posts the whole of it to the item's
address, and the server keeps the other items' text; a plain HTTP client does what a browser
without JavaScript does."""

from __future__ import annotations

import re

import httpx
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import InfoRequestItem
from tests.pages.helpers import csrf_of
from tests.pages.portal_support import signed_in, the_application
from tests.support.factories import TenantFixture, make_staff

TEXTAREA = r'<textarea id="answer-{item}" name="answer\.{item}"[^>]*>([^<]*)</textarea>'


def kept(html: str, item: str) -> str:
    found = re.search(TEXTAREA.format(item=item), html)
    assert found, f"no field for {item}"
    return found.group(1)


def page_form(html: str, items: list[str], typed: dict[str, str]) -> dict[str, str]:
    """What a browser without scripts posts: every field of the one form."""
    fields = {"csrf_token": csrf_of(html)}
    fields |= {f"answer.{item}": typed.get(item, kept(html, item)) for item in items}
    return fields


async def test_answering_one_item_keeps_what_was_typed_in_the_others(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await signed_in(client, runtime, tenant)
    app = await the_application(runtime)
    staff = await make_staff(runtime, "analyst")
    raised = await client.post(
        f"/staff/v1/applications/{app.id}/info-requests",
        json={
            "comment": "Three things",
            "items": [
                {"type": "question", "prompt": "What do you sell?"},
                {"type": "question", "prompt": "Who are your customers?"},
                {"type": "document", "prompt": "Upload a utility bill"},
            ],
        },
        headers=staff.headers,
    )
    assert raised.status_code == 201, raised.text
    request_id = raised.json()["requestId"]
    sell, customers, bill = (item["itemId"] for item in raised.json()["items"])
    items = [sell, customers, bill]

    page = await client.get("/portal/requests")
    assert page.text.count('<form method="post" action="/portal/requests/') == 1
    for item in items:
        assert f'formaction="/portal/requests/{request_id}/items/{item}"' in page.text

    # Typed in all three, sent the first: the other two are kept by the server.
    typed = {sell: "Tea", customers: "Cafés in Lyon, half wri", bill: "From March"}
    sent = await client.post(
        f"/portal/requests/{request_id}/items/{sell}",
        data=page_form(page.text, items, typed),
        files={f"file.{bill}": ("", b"", "application/octet-stream")},
    )
    assert sent.status_code == 303, sent.text
    page = await client.get("/portal/requests")
    assert f'id="answer-{sell}"' not in page.text  # answered
    assert kept(page.text, customers) == "Cafés in Lyon, half wri"
    assert kept(page.text, bill) == "From March"

    # Drafts are the applicant's alone: staff and the tenant read answers, never drafts.
    staff_read = await client.get(f"/staff/v1/applications/{app.id}", headers=staff.headers)
    tenant_read = await client.get(
        f"/v1/applications/{app.id}/info-requests", headers=tenant.headers
    )
    for read in (staff_read, tenant_read):
        assert read.status_code == 200, read.text
        assert "half wri" not in read.text
        assert "From March" not in read.text

    # A refused answer (empty) keeps every text as posted.
    refused = await client.post(
        f"/portal/requests/{request_id}/items/{customers}",
        data=page_form(page.text, [customers, bill], {customers: " ", bill: "From April"}),
    )
    assert refused.status_code == 400
    assert kept(refused.text, bill) == "From April"

    # Sent at last: its draft is gone with the answer; an id not owed is ignored.
    done = await client.post(
        f"/portal/requests/{request_id}/items/{customers}",
        data={
            **page_form(page.text, [customers, bill], {customers: "Cafés in Lyon"}),
            f"answer.{sell}": "changed after sending",
            "answer.itm_nothing": "x",
        },
    )
    assert done.status_code == 303, done.text
    page = await client.get("/portal/requests")
    assert f'id="answer-{customers}"' not in page.text
    assert kept(page.text, bill) == "From March"
    async with runtime.db.read() as session:
        rows = {
            row.id: row
            for row in await session.scalars(
                select(InfoRequestItem).where(InfoRequestItem.id.in_(items))
            )
        }
    assert (rows[sell].answer, rows[sell].draft) == ("Tea", None)
    assert (rows[customers].answer, rows[customers].draft) == ("Cafés in Lyon", None)
    assert (rows[bill].answer, rows[bill].draft) == (None, "From March")
