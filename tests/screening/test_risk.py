"""Risk (docs/reference/staff-api.md §17.5, §17.6): intake rules and their validation, the
computed level and its factors, the mlro override, and the queue's filters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Intake
from tests.screening.conftest import Applicant
from tests.screening.support import PEOPLE_FIELDS, SCREENING, run_jobs
from tests.support.audit import audit_actions
from tests.support.factories import StaffFixture, TenantFixture

RULES = {
    "rules": [
        {
            "key": "offshore",
            "label": "Registered offshore",
            "points": 15,
            "when": {"field": "country", "in": ["KY", "vg"]},
        },
        {
            "key": "no_director",
            "label": "No director named",
            "points": 5,
            "when": {"field": "directorName", "present": False},
        },
        {"key": "hit", "label": "Open screening hit", "points": 10, "when": {"screening": "open"}},
        {
            "key": "passport",
            "label": "Passport missing",
            "points": 3,
            "when": {"checklist": "passport", "satisfied": False},
        },
    ],
    "thresholds": {"medium": 10, "high": 25},
}
CHECKLIST = [{"key": "passport", "label": "Passport", "kind": "document", "required": True}]


@pytest.fixture
async def intake_id(client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture) -> str:
    body = {
        "name": "Risky",
        "formFields": PEOPLE_FIELDS,
        "checklist": CHECKLIST,
        "screening": SCREENING,
        "riskRules": RULES,
    }
    made = await client.post(
        f"/staff/v1/tenants/{tenant.tenant_id}/intakes", json=body, headers=staff.headers
    )
    assert made.status_code == 201, made.text
    assert made.json()["screening"] == SCREENING
    assert made.json()["riskRules"] == RULES
    return str(made.json()["labelId"])


async def _risk(client: httpx.AsyncClient, who: StaffFixture, client_id: str) -> Any:
    read = await client.get(f"/staff/v1/applications/{client_id}/risk", headers=who.headers)
    assert read.status_code == 200, read.text
    return read.json()


async def test_an_intake_shows_its_defaults(
    client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture
) -> None:
    made = await client.post(
        f"/staff/v1/tenants/{tenant.tenant_id}/intakes",
        json={"name": "Plain"},
        headers=staff.headers,
    )
    assert made.json()["screening"] == {"people": []}
    assert made.json()["riskRules"] == {"rules": [], "thresholds": {"medium": 10, "high": 20}}


def _rule(when: object, **extra: object) -> dict[str, Any]:
    return {"rules": [{"key": "r1", "label": "R", "points": 1, "when": when, **extra}]}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"screening": {"people": [{"name": "nope"}]}}, "screening.people[0].name"),
        (
            {"screening": {"people": [{"name": "directorName", "birthDate": "x"}]}},
            "screening.people[0].birthDate",
        ),
        ({"screening": {"people": [{"nationality": "country"}]}}, "screening.people[0]"),
        ({"screening": {"others": []}}, "screening"),
        ({"riskRules": _rule({"field": "nope", "in": ["a"]})}, "riskRules.rules[0] (r1)"),
        ({"riskRules": _rule({"field": "country", "like": "a"})}, "riskRules.rules[0] (r1)"),
        ({"riskRules": _rule({"screening": "maybe"})}, "riskRules.rules[0] (r1)"),
        (
            {"riskRules": _rule({"checklist": "visa", "satisfied": False})},
            "riskRules.rules[0] (r1)",
        ),
        (
            {
                "riskRules": {
                    "rules": [
                        {"key": "r1", "label": "R", "points": 1001, "when": {"screening": "open"}}
                    ]
                }
            },
            "riskRules.rules[0] (r1)",
        ),
        (
            {"riskRules": {"rules": [], "thresholds": {"medium": 30, "high": 20}}},
            "riskRules.thresholds",
        ),
        ({"riskRules": {"rules": [{"key": "r1"}]}}, "riskRules.rules[0]"),
    ],
)
async def test_bad_settings_are_refused_naming_the_place_and_change_nothing(
    client: httpx.AsyncClient,
    runtime: Runtime,
    staff: StaffFixture,
    tenant: TenantFixture,
    intake_id: str,
    body: dict[str, Any],
    field: str,
) -> None:
    async with runtime.db.read() as session:
        before = await session.scalar(select(func.count()).select_from(Intake))
    full = {"name": "New", "formFields": PEOPLE_FIELDS, "checklist": CHECKLIST, **body}
    created = await client.post(
        f"/staff/v1/tenants/{tenant.tenant_id}/intakes", json=full, headers=staff.headers
    )
    patched = await client.patch(f"/staff/v1/intakes/{intake_id}", json=body, headers=staff.headers)
    for refused in (created, patched):
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["code"] == "invalid-argument"
        assert refused.json()["error"]["details"][0]["field"] == field
    async with runtime.db.read() as session:
        assert await session.scalar(select(func.count()).select_from(Intake)) == before
    shown = await client.patch(f"/staff/v1/intakes/{intake_id}", json={}, headers=staff.headers)
    assert shown.json()["riskRules"] == RULES
    assert shown.json()["screening"] == SCREENING


async def test_removing_a_screened_form_field_is_refused(
    client: httpx.AsyncClient, staff: StaffFixture, intake_id: str
) -> None:
    refused = await client.patch(
        f"/staff/v1/intakes/{intake_id}",
        json={"formFields": PEOPLE_FIELDS[1:]},
        headers=staff.headers,
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["details"][0]["field"] == "screening.people[0].name"


async def test_the_level_follows_the_rules_and_a_match_makes_it_high(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    applicant: Applicant,
    analyst: StaffFixture,
) -> None:
    quiet = await applicant(directorName="Mette Fjordsen", country="DE")
    await run_jobs(runtime)
    assert await _risk(client, analyst, quiet) == {
        "level": "low",
        "score": 3,
        "factors": [{"rule": "passport", "label": "Passport missing", "points": 3}],
        "computedLevel": "low",
        "override": None,
    }
    offshore = await applicant(directorName="Vladimir Putin", country=" ky ")
    await run_jobs(runtime)
    risk = await _risk(client, analyst, offshore)
    assert [f["rule"] for f in risk["factors"]] == ["offshore", "hit", "passport"]
    assert (risk["score"], risk["level"], risk["computedLevel"]) == (28, "high", "high")
    nobody = await applicant(country="FR")
    await run_jobs(runtime)
    assert (await _risk(client, analyst, nobody))["score"] == 8  # no director, no passport
    # A hit resolved as a match: high whatever the score.
    screening = await client.get(
        f"/staff/v1/applications/{offshore}/screening", headers=analyst.headers
    )
    hit_id = screening.json()["data"][0]["hitId"]
    await client.post(
        f"/staff/v1/screening-hits/{hit_id}/resolve",
        json={"resolution": "match", "comment": "Confirmed."},
        headers=analyst.headers,
    )
    risk = await _risk(client, analyst, offshore)
    assert (risk["score"], risk["level"]) == (18, "high")


async def test_an_mlro_overrides_the_level_and_an_analyst_may_not(
    client: httpx.AsyncClient,
    runtime: Runtime,
    applicant: Applicant,
    analyst: StaffFixture,
    mlro: StaffFixture,
) -> None:
    client_id = await applicant(directorName="Anna Berg", country="DE")
    url = f"/staff/v1/applications/{client_id}/risk/override"
    body = {"level": "high", "reason": "Adverse media."}
    assert (await client.post(url, json=body, headers=analyst.headers)).status_code == 403
    missing = await client.post(url, json={"level": "high"}, headers=mlro.headers)
    assert missing.status_code == 400
    assert missing.json()["error"]["details"][0]["field"] == "reason"
    wrong = await client.post(url, json={"level": "huge", "reason": "x"}, headers=mlro.headers)
    assert wrong.json()["error"]["details"][0]["field"] == "level"
    done = await client.post(url, json=body, headers=mlro.headers)
    assert done.status_code == 200, done.text
    risk = done.json()
    assert (risk["level"], risk["computedLevel"]) == ("high", "low")
    assert risk["override"]["level"] == "high"
    assert risk["override"]["reason"] == "Adverse media."
    assert risk["override"]["by"] == mlro.email
    assert await _risk(client, analyst, client_id) == risk
    assert await audit_actions(runtime, "risk.%") == [
        ("risk.override", f"staff:{mlro.staff_id}", client_id)
    ]
    cleared = await client.post(
        url, json={"level": None, "reason": "Cleared."}, headers=mlro.headers
    )
    assert cleared.json()["override"] is None
    assert cleared.json()["level"] == "low"


async def test_the_queue_filters_by_level_and_open_hits(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    applicant: Applicant,
    analyst: StaffFixture,
) -> None:
    listed_one = await applicant(directorName="Vladimir Putin", country="KY")
    quiet = await applicant(directorName="Mette Fjordsen", country="DE")
    await run_jobs(runtime)

    async def ids(query: str) -> dict[str, tuple[str, int]]:
        got = await client.get(f"/staff/v1/applications?{query}", headers=analyst.headers)
        assert got.status_code == 200, got.text
        return {e["clientId"]: (e["risk"], e["openHits"]) for e in got.json()["data"]}

    assert await ids("") == {listed_one: ("high", 1), quiet: ("low", 0)}
    assert await ids("risk=high") == {listed_one: ("high", 1)}
    assert await ids("risk=low") == {quiet: ("low", 0)}
    assert await ids("risk=medium") == {}
    assert await ids("screening=hits") == {listed_one: ("high", 1)}
    for bad in ("risk=severe", "screening=clear"):
        refused = await client.get(f"/staff/v1/applications?{bad}", headers=analyst.headers)
        assert refused.status_code == 400
        assert refused.json()["error"]["details"][0]["field"] == bad.split("=")[0]


async def test_changes_without_a_request_are_found_by_the_worker(
    runtime: Runtime, applicant: Applicant
) -> None:
    from datetime import timedelta

    from gatehouse.screening import jobs
    from gatehouse.storage.tables.applications import Application

    first = await applicant(country="DE")
    second = await applicant(country="DE")
    await run_jobs(runtime)
    async with runtime.db.write() as session:
        await jobs.enqueue_stale_risk(session, runtime.now())
    assert await run_jobs(runtime) == 0  # nothing changed since
    async with runtime.db.write() as session:
        row = await session.get(Application, second)
        assert row is not None
        row.form_data = {"country": "KY"}  # as a change that asks for nothing would
        row.updated_at = row.updated_at + timedelta(hours=1)
        await jobs.enqueue_stale_risk(session, runtime.now())
    assert await run_jobs(runtime) == 1
    async with runtime.db.read() as session:
        from gatehouse.storage.tables.screening import ApplicationRisk

        levels = {r.application_id: r.score for r in await session.scalars(select(ApplicationRisk))}
    assert levels == {first: 8, second: 23}  # no director (5), passport (3), offshore (15)
