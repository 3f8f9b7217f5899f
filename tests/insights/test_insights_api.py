"""`GET /staff/v1/insights` (docs/reference/staff-api.md "Insights"; docs/insights.md): exact
figures for fresh tenants, filters that isolate tenants, intakes and periods, role checks and
refused parameters, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest

from gatehouse.runtime import Runtime
from gatehouse.timeutil import format_ts
from tests.insights.conftest import History
from tests.support.factories import StaffFixture


async def insights(client: httpx.AsyncClient, who: StaffFixture, **query: str) -> dict[str, Any]:
    answer = await client.get("/staff/v1/insights", params=query, headers=who.headers)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def by_email(body: dict[str, Any]) -> dict[str, tuple[int, int, int]]:
    return {
        row["email"]: (row["proposals"], row["countersignatures"], row["rejections"])
        for row in body["decisionsByStaff"]
    }


async def test_a_tenant_s_figures_are_exact(client: httpx.AsyncClient, history: History) -> None:
    body = await insights(client, history.mlro, tenantId=history.tenant.tenant_id)

    assert body["funnel"] == {
        "created": 7,
        "signedIn": 4,
        "submitted": 3,
        "decided": 2,
        "approved": 1,
        "rejected": 1,
    }
    # Nearest rank over [7200, 259200]: p50 is the first, p90 the second.
    assert body["timeToDecision"] == {"p50Seconds": 7_200, "p90Seconds": 259_200}
    assert body["openByAge"] == [
        {"bucket": "<1d", "count": 5},
        {"bucket": "1-3d", "count": 0},
        {"bucket": "3-7d", "count": 0},
        {"bucket": "7-30d", "count": 0},
        {"bucket": ">30d", "count": 0},
    ]
    assert by_email(body) == {
        history.analyst.email: (1, 0, 1),
        history.mlro.email: (0, 1, 0),
    }
    assert body["decisionsByStaff"][0]["staffId"] == history.analyst.staff_id  # busiest first
    assert body["screening"] == {"hits": 0, "match": 0, "noMatch": 0}
    assert body["risk"] == {"low": 0, "medium": 0, "high": 0}
    assert set(body) == {
        "from", "to", "funnel", "timeToDecision", "openByAge", "decisionsByStaff",
        "screening", "risk",
    }  # fmt: skip


async def test_filters_isolate_tenants_and_intakes(
    client: httpx.AsyncClient, history: History
) -> None:
    other = await insights(client, history.mlro, tenantId=history.other.tenant_id)
    assert other["funnel"] == {
        "created": 2, "signedIn": 0, "submitted": 0, "decided": 1, "approved": 0, "rejected": 1,
    }  # fmt: skip
    assert other["timeToDecision"] == {"p50Seconds": 600, "p90Seconds": 600}
    assert by_email(other) == {history.admin.email: (0, 0, 1)}

    persons = await insights(
        client, history.mlro, tenantId=history.tenant.tenant_id, labelId=history.intake_a
    )
    assert persons["funnel"]["created"] == 5
    assert persons["funnel"]["signedIn"] == 3
    assert persons["funnel"]["submitted"] == 2
    companies = await insights(client, history.mlro, labelId=history.intake_b)
    assert companies["funnel"] == {
        "created": 2, "signedIn": 1, "submitted": 1, "decided": 0, "approved": 0, "rejected": 0,
    }  # fmt: skip
    assert companies["timeToDecision"] == {"p50Seconds": None, "p90Seconds": None}
    assert companies["decisionsByStaff"] == []
    assert sum(b["count"] for b in companies["openByAge"]) == 2

    everyone = await insights(client, history.mlro)
    assert everyone["funnel"]["created"] == 9
    assert everyone["funnel"]["rejected"] == 2


async def test_periods_select_by_creation_and_decision_time(
    client: httpx.AsyncClient, runtime: Runtime, history: History
) -> None:
    now = runtime.now()
    tenant = history.tenant.tenant_id
    past = await insights(
        client,
        history.mlro,
        tenantId=tenant,
        **{"from": format_ts(now - timedelta(days=60)), "to": format_ts(now - timedelta(days=30))},
    )
    assert past["funnel"]["created"] == 0
    assert past["decisionsByStaff"] == []
    assert past["timeToDecision"] == {"p50Seconds": None, "p90Seconds": None}
    # Ageing is about the cases open now, whatever the period.
    assert sum(b["count"] for b in past["openByAge"]) == 5
    assert past["from"] == format_ts(now - timedelta(days=60))

    # A period that starts after the 3-day-old rejected case was created.
    recent = await insights(
        client, history.mlro, tenantId=tenant, **{"from": format_ts(now - timedelta(days=1))}
    )
    assert recent["funnel"]["created"] == 6
    assert recent["funnel"]["rejected"] == 0
    assert recent["timeToDecision"] == {"p50Seconds": 7_200, "p90Seconds": 7_200}
    # The rejection itself was made now: it counts in the period of decisions.
    assert by_email(recent)[history.analyst.email] == (1, 0, 1)


async def test_the_default_period_is_the_last_30_days(
    client: httpx.AsyncClient, runtime: Runtime, history: History
) -> None:
    body = await insights(client, history.mlro, tenantId=history.tenant.tenant_id)
    start, end = body["from"], body["to"]
    from gatehouse.timeutil import parse_ts

    assert parse_ts(end) - parse_ts(start) == timedelta(days=30)
    assert abs((runtime.now() - parse_ts(end)).total_seconds()) < 60


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"from": "yesterday"}, "from"),
        ({"to": "2026-11-01"}, "to"),
        ({"from": "2026-11-02T00:00:00Z", "to": "2026-11-01T00:00:00Z"}, "from"),
        ({"from": "2026-11-01T00:00:00Z", "to": "2026-11-01T00:00:00Z"}, "from"),
        ({"tenantId": ""}, "tenantId"),
        ({"labelId": ""}, "labelId"),
        ({"period": "30d"}, "period"),
    ],
)
async def test_bad_parameters_are_refused(
    client: httpx.AsyncClient, history: History, query: dict[str, str], field: str
) -> None:
    answer = await client.get("/staff/v1/insights", params=query, headers=history.mlro.headers)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid-argument"
    assert error["details"][0]["field"] == field


async def test_only_mlro_and_above(client: httpx.AsyncClient, history: History) -> None:
    denied = await client.get("/staff/v1/insights", headers=history.analyst.headers)
    assert denied.status_code == 403
    assert denied.json()["error"]["code"] == "permission-denied"
    assert (await client.get("/staff/v1/insights")).status_code == 401
    tenant_key = await client.get("/staff/v1/insights", headers=history.tenant.headers)
    assert tenant_key.status_code == 401
    assert (
        await client.get("/staff/v1/insights", headers=history.admin.headers)
    ).status_code == 200
