"""`/dashboard/insights` over HTTP (docs/insights.md "The page"): the charts and their tables
show the API's figures, the period and filters live in the URL, the CSV holds the same
figures, and the page is for mlro and above."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import httpx

from gatehouse.runtime import Runtime
from tests.insights.conftest import History
from tests.pages.helpers import dashboard_sign_in


def table_rows(html: str, caption_start: str) -> list[tuple[str, str]]:
    """(row header, value) of the table whose caption starts with `caption_start`."""
    table = html.split(f">{caption_start}", 1)[1].split("</table>", 1)[0]
    return re.findall(r'<th scope="row">([^<]+)</th><td class="num">([^<]+)</td>', table)


async def test_the_page_draws_the_figures_with_tables(
    client: httpx.AsyncClient, runtime: Runtime, history: History
) -> None:
    await dashboard_sign_in(client, history.mlro)
    page = await client.get("/dashboard/insights", params={"tenant": history.tenant.tenant_id})

    assert page.status_code == 200, page.text
    assert page.text.count("<svg") == 3
    assert 'role="img"' in page.text
    assert table_rows(page.text, "Funnel") == [
        ("Created", "7"),
        ("Signed in to the portal", "4"),
        ("Submitted", "3"),
        ("Decided", "2"),
        ("Approved", "1"),
        ("Rejected", "1"),
    ]
    assert dict(table_rows(page.text, "Time to decision"))["1 hour to 1 day"] == "1"
    assert dict(table_rows(page.text, "Time to decision"))["3 to 7 days"] == "1"
    assert table_rows(page.text, "Open cases by age")[0] == ("&lt;1d", "5")
    assert 'id="p50">2 hours<' in page.text
    assert 'id="p90">3 days<' in page.text
    staff_table = page.text.split('id="h-staff"', 1)[1].split("</table>", 1)[0]
    assert history.analyst.email in staff_table
    # Nothing comes from elsewhere: no script, no outside address in the charts.
    charts = "".join(re.findall(r"<svg.*?</svg>", page.text, re.S))
    assert "http" not in charts.replace('xmlns="http://www.w3.org/2000/svg"', "")
    # The filters are in the URL of the page and of its CSV.
    assert f"tenant={history.tenant.tenant_id}" in page.text
    assert "format=csv" in page.text


async def test_the_period_and_the_intake_filter_the_page(
    client: httpx.AsyncClient, runtime: Runtime, history: History
) -> None:
    await dashboard_sign_in(client, history.mlro)
    today = runtime.now().date()
    old = await client.get(
        "/dashboard/insights",
        params={
            "tenant": history.tenant.tenant_id,
            "from": (today - timedelta(days=90)).isoformat(),
            "to": (today - timedelta(days=31)).isoformat(),
        },
    )
    assert table_rows(old.text, "Funnel")[0] == ("Created", "0")
    assert 'id="no-staff-decisions"' in old.text
    persons = await client.get(
        "/dashboard/insights",
        params={"tenant": history.tenant.tenant_id, "intake": history.intake_a},
    )
    assert table_rows(persons.text, "Funnel")[0] == ("Created", "5")
    assert f'<option value="{history.intake_a}" selected>' in persons.text

    wrong = await client.get("/dashboard/insights", params={"from": "last week"})
    assert wrong.status_code == 400
    assert 'id="f-from-error"' in wrong.text
    backwards = await client.get(
        "/dashboard/insights", params={"from": "2026-11-10", "to": "2026-11-01"}
    )
    assert backwards.status_code == 400


async def test_the_csv_holds_the_same_figures(
    client: httpx.AsyncClient, runtime: Runtime, history: History
) -> None:
    await dashboard_sign_in(client, history.mlro)
    answer = await client.get(
        "/dashboard/insights", params={"tenant": history.tenant.tenant_id, "format": "csv"}
    )
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/csv")
    assert "attachment" in answer.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(answer.text)))
    assert rows[0] == ["section", "item", "measure", "value"]
    figures = {(r[0], r[1], r[2]): r[3] for r in rows[1:]}
    api = (
        await client.get(
            "/staff/v1/insights",
            params={
                "tenantId": history.tenant.tenant_id,
                "from": figures[("period", "from", "time")],
                "to": figures[("period", "to", "time")],
            },
            headers=history.mlro.headers,
        )
    ).json()
    for key, value in api["funnel"].items():
        assert figures[("funnel", key, "applications")] == str(value)
    assert figures[("timeToDecision", "p50", "seconds")] == str(api["timeToDecision"]["p50Seconds"])
    assert figures[("timeToDecision", "p90", "seconds")] == str(api["timeToDecision"]["p90Seconds"])
    for bucket in api["openByAge"]:
        assert figures[("openByAge", bucket["bucket"], "applications")] == str(bucket["count"])
    for person in api["decisionsByStaff"]:
        for measure in ("proposals", "countersignatures", "rejections"):
            assert figures[("decisionsByStaff", person["email"], measure)] == str(person[measure])
    assert figures[("filter", "tenantId", "id")] == history.tenant.tenant_id
    assert figures[("screening", "noMatch", "hits")] == "0"
    assert figures[("risk", "high", "applications")] == "0"


async def test_only_mlro_and_above_see_it(
    client: httpx.AsyncClient, runtime: Runtime, history: History
) -> None:
    await dashboard_sign_in(client, history.analyst)
    assert (await client.get("/dashboard/insights")).status_code == 403
    assert (await client.get("/dashboard/insights?format=csv")).status_code == 403
    queue = await client.get("/dashboard")
    assert 'href="/dashboard/insights"' not in queue.text
    await dashboard_sign_in(client, history.mlro)
    assert 'href="/dashboard/insights"' in (await client.get("/dashboard")).text
