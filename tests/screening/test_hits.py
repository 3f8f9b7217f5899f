"""Hits for staff (docs/reference/staff-api.md §17.2-§17.4): resolving, who may change a
resolution, resolutions kept across runs while the listed entity is unchanged, the approval
guard rail, and the audit trail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from gatehouse.runtime import Runtime
from tests.screening.conftest import Applicant
from tests.screening.support import PUTIN, filler, load, run_jobs, write_list
from tests.support.audit import audit_actions
from tests.support.factories import StaffFixture


async def _hits(client: httpx.AsyncClient, who: StaffFixture, client_id: str) -> Any:
    read = await client.get(f"/staff/v1/applications/{client_id}/screening", headers=who.headers)
    assert read.status_code == 200, read.text
    return read.json()


async def _resolve(
    client: httpx.AsyncClient, who: StaffFixture, hit_id: str, **body: object
) -> httpx.Response:
    return await client.post(
        f"/staff/v1/screening-hits/{hit_id}/resolve", json=body, headers=who.headers
    )


@pytest.fixture
async def hit(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    applicant: Applicant,
    analyst: StaffFixture,
) -> tuple[str, str]:
    """(clientId, hitId) of an application whose director is listed."""
    client_id = await applicant(directorName="Vladimir Putin")
    await run_jobs(runtime)
    body = await _hits(client, analyst, client_id)
    [found] = [h for h in body["data"] if h["entityId"] == "NK-putin"]
    assert len([h for h in body["data"] if h["status"] == "open"]) == 1
    return client_id, found["hitId"]


async def test_an_analyst_resolves_an_open_hit(
    client: httpx.AsyncClient, runtime: Runtime, hit: tuple[str, str], analyst: StaffFixture
) -> None:
    client_id, hit_id = hit
    done = await _resolve(client, analyst, hit_id, resolution="no_match", comment="Other DOB.")
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["hitId"] == hit_id
    assert body["status"] == "no_match"
    assert body["comment"] == "Other DOB."
    assert body["resolvedBy"] == analyst.email
    assert body["resolvedAt"].endswith("Z")
    read = await _hits(client, analyst, client_id)
    assert read["status"] == "clear"
    assert read["data"][0]["resolvedBy"] == analyst.email
    assert await audit_actions(runtime, "screening.hit.%") == [
        ("screening.hit.resolved", f"staff:{analyst.staff_id}", hit_id)
    ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"resolution": "no_match"}, "comment"),
        ({"resolution": "no_match", "comment": "   "}, "comment"),
        ({"resolution": "no_match", "comment": "x" * 4001}, "comment"),
        ({"resolution": "maybe", "comment": "why"}, "resolution"),
        ({"comment": "why"}, "resolution"),
    ],
)
async def test_bad_resolutions_are_refused_and_change_nothing(
    client: httpx.AsyncClient,
    runtime: Runtime,
    hit: tuple[str, str],
    analyst: StaffFixture,
    body: dict[str, object],
    field: str,
) -> None:
    client_id, hit_id = hit
    refused = await _resolve(client, analyst, hit_id, **body)
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "invalid-argument"
    assert refused.json()["error"]["details"][0]["field"] == field
    assert (await _hits(client, analyst, client_id))["data"][0]["status"] == "open"
    assert await audit_actions(runtime, "screening.hit.%") == []


async def test_a_comment_of_4000_characters_is_taken(
    client: httpx.AsyncClient, hit: tuple[str, str], analyst: StaffFixture
) -> None:
    done = await _resolve(client, analyst, hit[1], resolution="match", comment="y" * 4000)
    assert done.status_code == 200


async def test_an_unknown_hit_is_404(client: httpx.AsyncClient, analyst: StaffFixture) -> None:
    missing = await _resolve(client, analyst, "hit_nope", resolution="match", comment="c")
    assert missing.status_code == 404


async def test_changing_a_resolved_hit_needs_mlro(
    client: httpx.AsyncClient, hit: tuple[str, str], analyst: StaffFixture, mlro: StaffFixture
) -> None:
    _, hit_id = hit
    assert (await _resolve(client, analyst, hit_id, resolution="no_match", comment="a")).is_success
    again = await _resolve(client, analyst, hit_id, resolution="match", comment="b")
    assert again.status_code == 403
    changed = await _resolve(client, mlro, hit_id, resolution="match", comment="It is him.")
    assert changed.status_code == 200
    assert changed.json()["status"] == "match"
    assert changed.json()["resolvedBy"] == mlro.email


async def test_a_resolution_is_kept_across_runs_until_the_entity_changes(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tmp_path: Path,
    hit: tuple[str, str],
    analyst: StaffFixture,
) -> None:
    client_id, hit_id = hit
    await _resolve(client, analyst, hit_id, resolution="no_match", comment="Namesake.")
    ran = await client.post(
        f"/staff/v1/applications/{client_id}/screening/run", headers=analyst.headers
    )
    assert ran.status_code == 202
    assert ran.json() == {"clientId": client_id, "queued": True}
    assert await run_jobs(runtime) == 1
    kept = (await _hits(client, analyst, client_id))["data"][0]
    assert (kept["hitId"], kept["status"], kept["comment"]) == (hit_id, "no_match", "Namesake.")
    # The same entity in a new list version: unchanged, still resolved.
    await load(runtime, write_list(tmp_path / "v2.json", [PUTIN, *filler(30, seed=3)]))
    await run_jobs(runtime)
    assert (await _hits(client, analyst, client_id))["data"][0]["status"] == "no_match"
    # The entity changed (a new alias): the hit opens again.
    changed = {**PUTIN, "properties": {**PUTIN["properties"], "alias": ["V. V. Putin"]}}
    await load(runtime, write_list(tmp_path / "v3.json", [changed, *filler(30, seed=3)]))
    await run_jobs(runtime)
    reopened = await _hits(client, analyst, client_id)
    assert reopened["status"] == "hits"
    assert (reopened["data"][0]["hitId"], reopened["data"][0]["status"]) == (hit_id, "open")
    assert reopened["data"][0]["comment"] is None


async def _decide(
    client: httpx.AsyncClient, who: StaffFixture, client_id: str, action: str
) -> httpx.Response:
    return await client.post(
        f"/staff/v1/applications/{client_id}/decisions",
        json={"action": action},
        headers=who.headers,
    )


async def test_an_open_hit_blocks_approval_and_countersignature(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tmp_path: Path,
    hit: tuple[str, str],
    analyst: StaffFixture,
    mlro: StaffFixture,
) -> None:
    client_id, hit_id = hit
    refused = await _decide(client, analyst, client_id, "approve")
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "failed-precondition"
    assert "1 open screening hit" in refused.json()["error"]["message"]
    await _resolve(client, analyst, hit_id, resolution="no_match", comment="Namesake.")
    assert (await _decide(client, analyst, client_id, "approve")).status_code == 200
    # A list change while the proposal waits opens the hit again: no countersignature.
    changed = {**PUTIN, "properties": {**PUTIN["properties"], "alias": ["Putin V."]}}
    await load(runtime, write_list(tmp_path / "v2.json", [changed]))
    await run_jobs(runtime)
    blocked = await _decide(client, mlro, client_id, "countersign")
    assert blocked.status_code == 400
    assert "1 open screening hit" in blocked.json()["error"]["message"]
    await _resolve(client, mlro, hit_id, resolution="no_match", comment="Still a namesake.")
    signed = await _decide(client, mlro, client_id, "countersign")
    assert signed.status_code == 200, signed.text
    assert signed.json()["status"] == "active"


async def test_erasure_deletes_the_hits(
    client: httpx.AsyncClient, runtime: Runtime, hit: tuple[str, str], staff: StaffFixture
) -> None:
    client_id, hit_id = hit
    erased = await client.post(f"/staff/v1/applications/{client_id}/erase", headers=staff.headers)
    assert erased.status_code == 200, erased.text
    gone = await _resolve(client, staff, hit_id, resolution="match", comment="c")
    assert gone.status_code == 404
    read = await client.get(f"/staff/v1/applications/{client_id}/screening", headers=staff.headers)
    assert read.status_code == 404
