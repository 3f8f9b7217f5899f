"""The queue says where the work is (docs/workstation.md "Work states"): cases brought to each
state through the real portal and staff API, the state each viewer sees (the four-eyes rule:
the proposer never countersigns their own), the counts per state in one grouped query, the
state filter, every sort keyset-paged, and bad query values answered without a 500."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import select

from gatehouse.cases.queue import QueueFilters, queue_page, state_figures
from gatehouse.domain.work_state import (
    APPLICANT_INPUTS,
    STAFF_NOT_ACTING,
    CaseFacts,
    Reviewer,
    work_state,
)
from gatehouse.domain.workstation import SORTS
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import AuditEntry
from tests.pages.helpers import dashboard_sign_in
from tests.pages.portal_support import signed_in
from tests.support.factories import StaffFixture, TenantFixture, make_staff

ROW = re.compile(
    r'<a href="/dashboard/applications/(app_[a-z0-9]+)">.*?<td class="ws-([a-z-]+)">',
    re.S,
)


def ticking(start: datetime) -> Iterator[datetime]:
    """A clock one second on at every reading, so the trail's order is the test's order."""
    n = 0
    while True:
        n += 1
        yield start + timedelta(seconds=n)


def email_of(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower()) + "@example.test"


async def applicant(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, name: str, n: int = 0
) -> str:
    """A new application of `name`, its applicant signed in to the portal; its client id."""
    email = email_of(f"{name}{n}")
    await signed_in(client, runtime, tenant, email=email, company_name=name)
    me = await client.get("/portal/api/me")
    return str(me.json()["clientId"])


async def staff_post(client: httpx.AsyncClient, who: StaffFixture, path: str, body: Any) -> Any:
    answer = await client.post("/staff/v1" + path, json=body, headers=who.headers)
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


async def seed(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, people: dict[str, Any]
) -> dict[str, str]:
    """One case per state; `people` holds an analyst, a proposer (analyst) and an mlro."""
    analyst, mlro = people["analyst"], people["mlro"]
    ids: dict[str, str] = {}
    ids["never"] = await applicant(client, runtime, tenant, "Never Ltd")
    await client.post("/portal/api/form", json={"fields": {"website": "https://n.test"}})
    ids["submitted"] = await applicant(client, runtime, tenant, "Fresh Ltd")
    # Assigning a case is not reviewing it: before and after the submission.
    await staff_post(
        client,
        analyst,
        f"/applications/{ids['submitted']}/assignment",
        {"staffId": analyst.staff_id},
    )
    assert (await client.post("/portal/api/submit")).status_code == 200
    await staff_post(
        client, analyst, f"/applications/{ids['submitted']}/assignment", {"staffId": mlro.staff_id}
    )
    ids["review"] = await applicant(client, runtime, tenant, "Seen Ltd")
    await client.post("/portal/api/submit")
    await staff_post(client, analyst, f"/applications/{ids['review']}/notes", {"text": "Read."})
    ids["answers"] = await applicant(client, runtime, tenant, "Answered Ltd")
    await client.post("/portal/api/submit")
    raised = await staff_post(
        client,
        analyst,
        f"/applications/{ids['answers']}/info-requests",
        {"comment": "One thing.", "items": [{"type": "question", "prompt": "What do you sell?"}]},
    )
    ids["waiting"] = await applicant(client, runtime, tenant, "Waiting Ltd")
    await client.post("/portal/api/submit")
    await staff_post(
        client,
        analyst,
        f"/applications/{ids['waiting']}/info-requests",
        {"comment": "One more.", "items": [{"type": "question", "prompt": "Who owns you?"}]},
    )
    # The applicant of "answers" answers the one item: the request is responded, pending.
    await signed_in(
        client, runtime, tenant, email=email_of("Answered Ltd0"), company_name="Answered Ltd"
    )
    item = raised["items"][0]["itemId"]
    answered = await client.post(
        f"/portal/api/info-requests/{raised['requestId']}/items/{item}/answer",
        json={"answer": "Tea"},
    )
    assert answered.status_code == 200, answered.text
    ids["changed"] = await applicant(client, runtime, tenant, "Changed Ltd")
    await client.post("/portal/api/submit")
    await staff_post(client, analyst, f"/applications/{ids['changed']}/notes", {"text": "OK."})
    await client.post("/portal/api/form", json={"fields": {"website": "https://c.test"}})
    for name, proposer in (("proposed", people["proposer"]), ("own", mlro)):
        ids[name] = await applicant(client, runtime, tenant, name.title() + " Proposal Ltd")
        await client.post("/portal/api/submit")
        await staff_post(
            client,
            proposer,
            f"/applications/{ids[name]}/decisions",
            {"action": "approve", "acknowledgeUnsatisfied": "Seen in person."},
        )
    ids["hold"] = await applicant(client, runtime, tenant, "Held Ltd")
    await staff_post(client, analyst, f"/applications/{ids['hold']}/decisions", {"action": "hold"})
    ids["decided"] = await applicant(client, runtime, tenant, "Done Ltd")
    await staff_post(
        client,
        analyst,
        f"/applications/{ids['decided']}/decisions",
        {"action": "reject", "rejectionReason": "Out of scope."},
    )
    return ids


EXPECTED = {
    "never": "never_submitted",
    "submitted": "submitted",
    "review": "in_review",
    "answers": "new_answers",
    "waiting": "waiting_applicant",
    "changed": "new_answers",
    "hold": "on_hold",
    "decided": "decided",
}


async def facts_from_python(runtime: Runtime, client_id: str) -> CaseFacts:
    """The rule's facts read row by row in Python (not through the queue's SQL)."""
    async with runtime.db.read() as session:
        app = await session.get(Application, client_id)
        trail = (
            (
                await session.execute(
                    select(AuditEntry).where(AuditEntry.application_id == client_id)
                )
            )
            .scalars()
            .all()
        )
    assert app is not None
    staff = [
        e.at for e in trail if e.actor.startswith("staff:") and e.action not in STAFF_NOT_ACTING
    ]
    inputs = [
        e.at for e in trail if e.actor.startswith("applicant:") and e.action in APPLICANT_INPUTS
    ]
    return CaseFacts(
        app.status,
        app.submitted_at,
        app.proposed_by,
        max(staff, default=None),
        max(inputs, default=None),
    )


async def test_each_viewer_sees_where_the_work_is(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    real = runtime.clock
    moments = ticking(runtime.now() - timedelta(days=2))
    runtime.clock = lambda: next(moments)
    people = {
        "analyst": await make_staff(runtime, "analyst"),
        "proposer": await make_staff(runtime, "analyst"),
        "mlro": await make_staff(runtime, "mlro"),
    }
    ids = await seed(client, runtime, tenant, people)
    runtime.clock = real
    by_id = {client_id: name for name, client_id in ids.items()}

    for who, proposed, own in (
        ("mlro", "countersign", "proposed"),
        ("analyst", "proposed", "proposed"),
    ):
        viewer: StaffFixture = people[who]
        reviewer = Reviewer(viewer.staff_id, who == "mlro")
        expected = {**EXPECTED, "proposed": proposed, "own": own}
        async with runtime.db.read() as session:
            page = await queue_page(
                session, runtime.crypto, QueueFilters(), None, reviewer=reviewer
            )
            counts = await state_figures(session, QueueFilters(), reviewer)
        seen = {by_id[row.application.id]: row.state for row in page.rows}
        assert seen == expected, who
        # The SQL agrees with the pure rule on every case.
        for name, client_id in ids.items():
            facts = await facts_from_python(runtime, client_id)
            assert work_state(facts, reviewer) == expected[name], (who, name)
        wanted: dict[str, int] = {}
        for state in expected.values():
            wanted[state] = wanted.get(state, 0) + 1
        assert counts == wanted

        # The page: the counts in the state links, the state filter, the rows' words.
        client.cookies.clear()
        await dashboard_sign_in(client, viewer)
        html = (await client.get("/dashboard")).text
        assert re.search(r'data-state="all">All <span class="count">10</span>', html)
        assert re.search(r'data-state="new_answers">New answers <span class="count">2</span>', html)
        mine = await client.get("/dashboard?state=countersign")
        assert mine.status_code == 200
        rows = ROW.findall(mine.text)
        assert [by_id[c] for c, _ in rows] == (["proposed"] if who == "mlro" else [])
        assert 'aria-current="page" data-state="countersign"' in mine.text
        answers = await client.get("/dashboard?state=new_answers&sort=company")
        assert [by_id[c] for c, _ in ROW.findall(answers.text)] == ["answers", "changed"]


async def test_bad_query_values_are_refused_in_words(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    analyst = await make_staff(runtime, "analyst")
    await applicant(client, runtime, tenant, "Only Ltd")
    await dashboard_sign_in(client, analyst)
    for query, field, words in (
        ("state=everything", "state", "Choose one of the listed work states."),
        ("sort=sideways", "sort", "Choose one of the listed orders."),
        ("risk=extreme", "risk", "Choose low, medium or high."),
    ):
        page = await client.get("/dashboard?" + query)
        assert page.status_code == 400, query
        assert f'id="f-{field}-error"' in page.text
        assert words in page.text
        assert "Only Ltd" in page.text  # the rest of the queue is shown, the filter left out
    # A control character is refused at the edge, as on every page.
    assert (await client.get("/dashboard?state=%00")).status_code == 400
    # A cursor from another sort is not valid for this one: the first page, said in words.
    for n in range(30):
        await applicant(client, runtime, tenant, f"Many {n}", n + 1)
    first = await client.get("/dashboard?sort=company")
    found = re.search(r'<a href="/dashboard\?([^"]+)" rel="next">', first.text)
    assert found
    cursor = found.group(1).replace("&amp;", "&").split("cursor=")[1]
    for query in (f"sort=oldest&cursor={cursor}", "sort=oldest&cursor=abc.def"):
        other = await client.get("/dashboard?" + query)
        assert other.status_code == 200
        assert "That page link is no longer valid" in other.text


async def test_every_sort_pages_through_every_case_once(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    real = runtime.clock
    moments = ticking(runtime.now() - timedelta(days=3))
    runtime.clock = lambda: next(moments)
    made = []
    for n in range(31):
        # Names that tie once lowered and that start with letters, digits and accents.
        name = ["Acme", "acme", "Émile", "zeta", "9 Lives"][n % 5] + (f" {n // 5}" if n % 7 else "")
        made.append(await applicant(client, runtime, tenant, name, n))
        if n % 3 == 0:
            await client.post("/portal/api/submit")
    runtime.clock = real
    analyst = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, analyst)
    for sort in SORTS:
        seen: list[str] = []
        url = f"/dashboard?sort={sort}"
        while url:
            page = await client.get(url)
            assert page.status_code == 200, (sort, page.text[:300])
            seen += [c for c, _ in ROW.findall(page.text)]
            found = re.search(r'<a href="([^"]+)" rel="next">', page.text)
            url = found.group(1).replace("&amp;", "&") if found else ""
        assert sorted(seen) == sorted(made), sort
        assert len(seen) == len(set(seen)) == 31, sort
    # The headings sort: Company asks for A to Z, then Z to A.
    html = (await client.get("/dashboard?sort=company")).text
    assert 'aria-sort="ascending"><a href="/dashboard?sort=company_desc"' in html
    html = (await client.get("/dashboard")).text
    assert '<a href="/dashboard?sort=company" class="sort">Company</a>' in html
