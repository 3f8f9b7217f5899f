"""Nothing of screening or risk reaches a tenant, an applicant or a webhook receiver
(docs/screening.md): every `/v1` read, every portal GET route and every event written for
the application are searched for any trace of it, after a real portal session made the
answers that were screened."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import orjson
from fastapi import FastAPI

from gatehouse.runtime import Runtime
from tests.portal.conftest import provision, sign_in
from tests.robustness.test_text_edge import every_route
from tests.screening.support import run_jobs
from tests.support.cases import outbox_events
from tests.support.factories import StaffFixture, TenantFixture

SECRETS = ("Confidential resolution note", "Confidential override reason", "Sanctioned person")
TRACES = (
    *SECRETS,
    "Путин",
    "NK-putin",
    "hit_",
    "openHits",
    "riskRules",
    "computedLevel",
    "symbolMatch",
    "role.pep",
)
RULES = {
    "rules": [
        {"key": "listed", "label": "Sanctioned person", "points": 50, "when": {"screening": "open"}}
    ],
    "thresholds": {"medium": 10, "high": 20},
}


def _filled(path: str, values: dict[str, str]) -> str | None:
    """The path with its parameters filled in, or None when one is unknown."""
    names = re.findall(r"{(\w+)}", path)
    if any(name not in values for name in names):
        return None
    return re.sub(r"{(\w+)}", lambda m: values[m.group(1)], path)


async def test_no_tenant_read_portal_route_or_event_shows_screening_or_risk(
    app: FastAPI,
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    tenant: TenantFixture,
    staff: StaffFixture,
    intake_id: str,
) -> None:
    patched = await client.patch(
        f"/staff/v1/intakes/{intake_id}", json={"riskRules": RULES}, headers=staff.headers
    )
    assert patched.status_code == 200
    made = await provision(client, tenant, labelId=intake_id)
    await sign_in(client, made.token)
    saved = await client.post(
        "/portal/api/form",
        json={"fields": {"directorName": "Vladimir Putin"}, "companyName": "Rosneft Oil Co"},
    )
    assert saved.status_code == 200, saved.text
    assert (await client.post("/portal/api/submit")).status_code == 200
    assert await run_jobs(runtime) >= 1  # the form save and the submission asked for it
    screening = await client.get(
        f"/staff/v1/applications/{made.client_id}/screening", headers=staff.headers
    )
    hits = screening.json()["data"]
    assert {hit["entityId"] for hit in hits} >= {"NK-putin", "NK-rosneft"}
    resolved = await client.post(
        f"/staff/v1/screening-hits/{hits[-1]['hitId']}/resolve",
        json={"resolution": "no_match", "comment": SECRETS[0]},
        headers=staff.headers,
    )
    assert resolved.status_code == 200
    overridden = await client.post(
        f"/staff/v1/applications/{made.client_id}/risk/override",
        json={"level": "medium", "reason": SECRETS[1]},
        headers=staff.headers,
    )
    assert overridden.status_code == 200
    risk = await client.get(f"/staff/v1/applications/{made.client_id}/risk", headers=staff.headers)
    assert risk.json()["factors"][0]["label"] == SECRETS[2]  # the staff side does see it

    values = {"client_id": made.client_id, "label_id": intake_id}
    read = 0
    for method, template in every_route(app):
        path = _filled(template, values)
        if method != "GET" or path is None:
            continue
        if path.startswith("/v1/"):
            answer = await client.get(path, headers=tenant.headers)
        elif path.startswith("/portal"):
            answer = await client.get(path)
        else:
            continue
        read += answer.status_code == 200
        for trace in TRACES:
            assert trace not in answer.text, (path, trace)
    assert read >= 10

    events = await outbox_events(runtime, made.client_id)
    assert events, "the submission was announced"
    for event in events:
        body = orjson.dumps(event).decode()
        for trace in TRACES:
            assert trace not in body, (event["type"], trace)
