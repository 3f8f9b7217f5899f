"""The reviewer's workstation through the dashboard pages (docs/workstation.md): the decision
form offers only the allowed moves, a proposal with unsatisfied items needs a reason, notes,
assignment, the queue's search, filters, sorts and pages, and reminders."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Decision
from gatehouse.storage.tables.core import AuditEntry
from tests.pages.helpers import dashboard_sign_in
from tests.support.cases import outbox_events
from tests.support.factories import TenantFixture, make_staff, make_tenant

# "DELTA S.A." in Greek capitals (written as escapes: ruff flags letters that look Latin).
GREEK = "\u0394\u0388\u039b\u03a4\u0391 \u0391.\u0395."
OPTION = re.compile(r'<option value="([a-z_]+)"')


async def provision(client: httpx.AsyncClient, tenant: TenantFixture, **fields: Any) -> str:
    made = await client.post("/v1/applications", json=fields, headers=tenant.headers)
    assert made.status_code == 201, made.text
    return str(made.json()["clientId"])


async def row(runtime: Runtime, client_id: str) -> Application:
    async with runtime.db.read() as session:
        found = await session.get(Application, client_id)
    assert found is not None
    return found


def decision_options(html: str) -> list[str]:
    form = html.split('action="/dashboard/applications/', 1)
    select_html = html.split('id="f-action"', 1)[1].split("</select>", 1)[0] if form else ""
    return OPTION.findall(select_html)


def queue_ids(html: str) -> list[str]:
    """The client ids of the queue's rows, in order."""
    return re.findall(r'<a href="/dashboard/applications/(app_[a-z0-9]+)">', html)


async def test_the_decision_form_offers_only_the_allowed_moves(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, email="g@example.test", companyName="Guard Ltd")
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    page = await client.get(f"/dashboard/applications/{client_id}")
    assert decision_options(page.text) == ["approve", "reject", "hold"]
    assert 'id="unsatisfied"' in page.text
    assert "Passport" in page.text

    # Proposing without a reason: refused in words beside the field, nothing recorded.
    refused = await client.post(
        f"/dashboard/applications/{client_id}/decisions",
        data={"csrf_token": csrf, "action": "approve"},
    )
    assert refused.status_code == 400
    error = re.search(r'id="f-acknowledge_reason-error">([^<]+)<', refused.text)
    assert error, "the refusal is not beside the reason field"
    assert "Passport" in error.group(1)
    assert "acknowledgeUnsatisfied" not in error.group(1)
    assert (await row(runtime, client_id)).status == "pending"

    proposed = await client.post(
        f"/dashboard/applications/{client_id}/decisions",
        data={"csrf_token": csrf, "action": "approve", "acknowledge_reason": "Seen in person"},
    )
    assert proposed.status_code == 303
    page = await client.get(f"/dashboard/applications/{client_id}")
    # The proposer (an analyst) may reject or hold, never countersign; the page says why.
    assert decision_options(page.text) == ["reject", "hold"]
    assert "You proposed this approval" in page.text
    assert "Seen in person" in page.text  # the history shows the reason to staff
    async with runtime.db.read() as session:
        history = (await session.scalars(select(Decision.acknowledged_items))).all()
    assert history == [["passport"]]

    mlro = await make_staff(runtime, "mlro")
    client.cookies.clear()
    await dashboard_sign_in(client, mlro)
    page = await client.get(f"/dashboard/applications/{client_id}")
    assert decision_options(page.text) == ["countersign", "reject_proposal", "reject", "hold"]
    assert 'id="withheld"' not in page.text


async def test_notes_on_the_case_page(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, email="n@example.test")
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    empty = await client.post(
        f"/dashboard/applications/{client_id}/notes", data={"csrf_token": csrf, "note": "  "}
    )
    assert empty.status_code == 400
    assert re.search(r'id="f-note-error">Write the note', empty.text)
    added = await client.post(
        f"/dashboard/applications/{client_id}/notes",
        data={"csrf_token": csrf, "note": "Spoke to the director."},
    )
    assert added.status_code == 303
    page = await client.get(added.headers["location"].split("#")[0])
    notes = page.text.split('id="timeline"', 1)[1]
    assert "Spoke to the director." in notes
    assert analyst.email in notes
    assert "Note added." in page.text
    forged = await client.post(
        f"/dashboard/applications/{client_id}/notes", data={"note": "no token"}
    )
    assert forged.status_code == 403


async def test_claim_hand_over_and_unassign(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, email="a@example.test", companyName="Mine Ltd")
    other_id = await provision(client, tenant, email="b@example.test", companyName="Other Ltd")
    analyst = await make_staff(runtime, "analyst")
    colleague = await make_staff(runtime, "mlro")
    csrf = await dashboard_sign_in(client, analyst)
    path = f"/dashboard/applications/{client_id}/assignment"
    claimed = await client.post(path, data={"csrf_token": csrf, "move": "claim"})
    assert claimed.status_code == 303
    page = await client.get(f"/dashboard/applications/{client_id}")
    assert "You have this case." in page.text
    mine = await client.get("/dashboard?assignee=me")
    assert queue_ids(mine.text) == [client_id]
    unassigned = await client.get("/dashboard?assignee=none")
    assert queue_ids(unassigned.text) == [other_id]

    missing = await client.post(path, data={"csrf_token": csrf, "move": "hand"})
    assert missing.status_code == 400
    assert 'id="f-staff_id-error"' in missing.text
    handed = await client.post(
        path, data={"csrf_token": csrf, "move": "hand", "staff_id": colleague.staff_id}
    )
    assert handed.status_code == 303
    assert (await row(runtime, client_id)).assigned_to == colleague.staff_id
    page = await client.get(f"/dashboard/applications/{client_id}")
    assert f"{colleague.email} has this case." in page.text
    theirs = await client.get(f"/dashboard?assignee={colleague.staff_id}")
    assert queue_ids(theirs.text) == [client_id]
    freed = await client.post(path, data={"csrf_token": csrf, "move": "unassign"})
    assert freed.status_code == 303
    again = await client.post(path, data={"csrf_token": csrf, "move": "unassign"})
    assert again.status_code == 400
    assert 'id="assignment-error"' in again.text
    assert (await row(runtime, client_id)).assigned_to is None
    async with runtime.db.read() as session:
        actions = (
            await session.scalars(
                select(AuditEntry.action)
                .where(AuditEntry.application_id == client_id)
                .where(AuditEntry.action.like("application.%assign"))
                .order_by(AuditEntry.at, AuditEntry.id)
            )
        ).all()
    assert actions == ["application.assign", "application.assign", "application.unassign"]


async def test_queue_search_filters_sorts_and_pages(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    real = runtime.clock
    start = runtime.now() - timedelta(days=40)
    moments = iter(start + timedelta(hours=n) for n in range(1000))
    runtime.clock = lambda: next(moments)
    ids = [
        await provision(
            client,
            tenant,
            email=f"person{n}@{'northwind' if n % 2 else 'acme'}.test",
            companyName=f"{'Northwind' if n % 2 else 'Acme'} Trading {n}",
            externalRef=f"REF-{n:03d}",
        )
        for n in range(30)
    ]
    sandbox = await make_tenant(runtime, name="Play", environment="sandbox")
    hidden = await provision(client, sandbox, email="play@acme.test", companyName="Acme Sandbox")
    runtime.clock = real
    analyst = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, analyst)

    async def listed(query: str) -> list[str]:
        page = await client.get("/dashboard?" + query)
        assert page.status_code == 200, page.text
        return queue_ids(page.text)

    # Search: company (any case), email, external ref, the exact client id; % is literal.
    assert set(await listed("q=NORTHWIND+trading")) == set(ids[1::2][:25])
    assert await listed("q=person7%40northwind") == [ids[7]]
    assert await listed("q=ref-012") == [ids[12]]
    assert await listed(f"q={ids[3]}") == [ids[3]]
    # A search keeps the order asked for (on PostgreSQL its few matches are sorted).
    assert await listed("q=acme+trading&sort=oldest") == ids[0::2]
    assert await listed("q=acme+trading&sort=newest") == list(reversed(ids[0::2]))
    assert await listed("q=%25") == []
    assert await listed("q=nobody+at+all") == []
    # Sandbox tenants' cases stay out unless asked for, or their tenant is chosen.
    assert hidden not in await listed("q=acme")
    assert hidden in await listed("q=acme&sandbox=1")
    assert await listed(f"tenant={sandbox.tenant_id}") == [hidden]

    # Sorts: oldest first and newest first by the case's age, paged with the cursor.
    oldest = await listed("sort=oldest")
    assert oldest == ids[:25]
    assert await listed("sort=newest") == list(reversed(ids))[:25]
    page = await client.get("/dashboard?sort=oldest")
    next_link = re.search(r'href="(/dashboard\?[^"]*cursor=[^"]+)" rel="next"', page.text)
    assert next_link
    rest = await client.get(next_link.group(1).replace("&amp;", "&"))
    assert queue_ids(rest.text) == ids[25:]
    refused = await client.get(next_link.group(1).replace("&amp;", "&").replace("oldest", "newest"))
    assert "no longer valid" in refused.text

    # Filters: waiting on the applicant, status, intake; unknown values in words.
    raised = await client.post(
        f"/staff/v1/applications/{ids[5]}/info-requests",
        json={"comment": "One", "items": [{"type": "question", "prompt": "Why?"}]},
        headers=analyst.headers,
    )
    assert raised.status_code == 201
    assert await listed("waiting=applicant") == [ids[5]]
    assert ids[5] not in await listed("waiting=staff&sort=oldest")
    assert await listed("status=needs_info") == [ids[5]]
    assert len(await listed(f"intake={tenant.label_id}")) == 25
    assert await listed("intake=lbl_none") == []
    bad = await client.get("/dashboard?waiting=everyone&sort=sideways")
    assert bad.status_code == 400
    assert 'id="f-waiting-error"' in bad.text
    assert 'id="f-sort-error"' in bad.text
    page = await client.get("/dashboard?sort=oldest")
    assert "<td>40 d</td>" in page.text  # the oldest case's age


async def test_reminder_due_is_flagged_and_sent_from_the_case_page(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, email="r@example.test", companyName="Slow Ltd")
    analyst = await make_staff(runtime, "analyst")
    real = runtime.now()
    runtime.clock = lambda: real - timedelta(days=4)
    raised = await client.post(
        f"/staff/v1/applications/{client_id}/info-requests",
        json={"comment": "Please", "items": [{"type": "question", "prompt": "Turnover?"}]},
        headers=analyst.headers,
    )
    request_id = raised.json()["requestId"]
    runtime.clock = lambda: real
    csrf = await dashboard_sign_in(client, analyst)
    queue = await client.get("/dashboard?waiting=applicant")
    assert queue_ids(queue.text) == [client_id]
    assert "reminder due</span></td>" in queue.text.replace("\n", "")
    case = await client.get(f"/dashboard/applications/{client_id}")
    assert "In this state for 4 d" in case.text
    sent = await client.post(
        f"/dashboard/info-requests/{request_id}/remind", data={"csrf_token": csrf}
    )
    assert sent.status_code == 303
    page = await client.get(sent.headers["location"])
    assert "Reminder sent" in page.text
    assert "Last reminder" in page.text
    events = [e["type"] for e in await outbox_events(runtime, client_id)]
    assert events[-1] == "application.info_request.reminder"
    queue = await client.get("/dashboard?waiting=applicant")
    assert "reminder due</span></td>" not in queue.text.replace("\n", "")


async def test_queue_search_lowers_every_script_on_both_databases(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    """SQLite's own lower() and LIKE fold ASCII only; the search must find "Ärzte Ölmühle"
    however it is typed, as PostgreSQL does."""
    found = await provision(
        client, tenant, email="praxis@aerzte.test", companyName="Ärzte Ölmühle GmbH"
    )
    greek = await provision(client, tenant, email="info@delta.test", companyName=GREEK)
    await provision(client, tenant, email="other@acme.test", companyName="Acme Trading")
    analyst = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, analyst)

    async def listed(query: str) -> list[str]:
        page = await client.get("/dashboard", params={"q": query})
        assert page.status_code == 200, page.text
        return queue_ids(page.text)

    for typed in ("Ärzte Ölmühle", "ärzte ölmühle", "ÄRZTE ÖLMÜHLE", "ölmühle gmbh"):
        assert await listed(typed) == [found], typed
    for typed in (GREEK.lower()[:5], GREEK[:5]):
        assert await listed(typed) == [greek], typed
    assert await listed("ölmuhle") == []


async def test_refused_moves_are_said_in_words_beside_their_fields(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    """A move posted from an old page or a crafted form: the refusal says in words what is
    wrong (never an API field name) and who must act, beside the field it concerns."""
    client_id = await provision(client, tenant, email="w@example.test", companyName="Words Ltd")
    proposer = await make_staff(runtime, "analyst")
    proposed = await client.post(
        f"/staff/v1/applications/{client_id}/decisions",
        json={"action": "approve", "acknowledgeUnsatisfied": "Seen"},
        headers=proposer.headers,
    )
    assert proposed.status_code == 200, proposed.text
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    decisions = f"/dashboard/applications/{client_id}/decisions"

    def notice(html: str) -> str:
        found = re.search(r'id="decision-error">([^<]+)<', html)
        assert found, "no refusal above the decision form"
        return found.group(1)

    # Not the proposer, but below mlro: the role is the reason, not four eyes.
    other = await client.post(decisions, data={"csrf_token": csrf, "action": "countersign"})
    assert other.status_code == 403
    assert notice(other.text) == "Countersigning an approval needs the mlro role or above."
    turned = await client.post(decisions, data={"csrf_token": csrf, "action": "reject_proposal"})
    assert notice(turned.text).startswith("Turning down a proposed approval needs the mlro")
    long = await client.post(
        decisions,
        data={"csrf_token": csrf, "action": "reject", "rejection_reason": "x" * 2001},
    )
    assert long.status_code == 400
    beside = re.search(r'id="f-rejection_reason-error">([^<]+)<', long.text)
    assert beside
    assert beside.group(1).startswith("The rejection reason can be at most 2000 characters")
    comment = await client.post(
        decisions, data={"csrf_token": csrf, "action": "hold", "decision_comment": "x" * 4001}
    )
    assert re.search(r'id="f-decision_comment-error">The comment can be at most', comment.text)
    assert (await row(runtime, client_id)).status == "pending_approval"

    # The information-request form: an item's refusal beside that item's prompt.
    raised = await client.post(
        f"/dashboard/applications/{client_id}/info-requests",
        data={
            "csrf_token": csrf,
            "comment": "Two things",
            "item_type_0": "question",
            "item_prompt_0": "p" * 2001,
        },
    )
    assert raised.status_code == 400
    prompt = re.search(r'id="f-item_prompt_0-error">([^<]+)<', raised.text)
    assert prompt
    assert prompt.group(1).startswith("The prompt of item 1 can be at most")
    for page in (other, turned, long, comment, raised):
        said = re.findall(r'id="(?:decision-error|f-[a-z_0-9]+-error)">([^<]+)<', page.text)
        assert said
        for words in said:
            for name in ("rejectionReason", "reject_proposal", "countersign action", "items."):
                assert name not in words, words
            assert "must be" not in words, words


async def test_a_case_of_a_deactivated_colleague_says_so_and_can_be_claimed(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, email="d@example.test", companyName="Left Ltd")
    analyst = await make_staff(runtime, "analyst")
    leaver = await make_staff(runtime, "analyst")
    admin = await make_staff(runtime, "super_admin")
    handed = await client.post(
        f"/staff/v1/applications/{client_id}/assignment",
        json={"staffId": leaver.staff_id},
        headers=analyst.headers,
    )
    assert handed.status_code == 200, handed.text
    gone = await client.post(f"/staff/v1/staff/{leaver.staff_id}/deactivate", headers=admin.headers)
    assert gone.status_code == 200, gone.text
    csrf = await dashboard_sign_in(client, analyst)
    page = await client.get(f"/dashboard/applications/{client_id}")
    assignee = re.search(r'<p id="assignee">(.+?)</p>', page.text)
    assert assignee
    assert "no longer active" in assignee.group(1)
    # Their work is still found by their id, and anyone may take it over.
    theirs = await client.get(f"/dashboard?assignee={leaver.staff_id}")
    assert queue_ids(theirs.text) == [client_id]
    claimed = await client.post(
        f"/dashboard/applications/{client_id}/assignment",
        data={"csrf_token": csrf, "move": "claim"},
    )
    assert claimed.status_code == 303
    assert (await row(runtime, client_id)).assigned_to == analyst.staff_id
