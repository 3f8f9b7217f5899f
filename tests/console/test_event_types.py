"""`GET /v1/event-types` (docs/reference/tenant-api.md §5.17) and the console's catalogue pages:
every type of the catalogue, any scope, each example valid against its schema, and real
envelopes (a published event, a test send) valid against theirs while a wrong one is not."""

from __future__ import annotations

import json
from typing import Any

import httpx
import jsonschema
import pytest

from gatehouse.domain.event_types import EventType
from gatehouse.runtime import Runtime
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.console.support import open_console
from tests.support.factories import TenantFixture, make_tenant
from tests.webhooks.conftest import create_endpoint, emit, wait_requests
from tests.webhooks.receiver import Receiver


async def catalogue(client: httpx.AsyncClient, tenant: TenantFixture) -> list[dict[str, Any]]:
    answer = await client.get("/v1/event-types", headers=tenant.headers)
    assert answer.status_code == 200, answer.text
    data: list[dict[str, Any]] = answer.json()["data"]
    return data


def validator(entry: dict[str, Any]) -> jsonschema.Validator:
    schema = entry["schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("scope", ["applications:write", "applications:read", "webhooks:manage"])
async def test_any_scope_reads_every_type(
    client: httpx.AsyncClient, runtime: Runtime, scope: str
) -> None:
    tenant = await make_tenant(runtime, [scope], with_intake=False)
    entries = await catalogue(client, tenant)
    assert [e["type"] for e in entries] == [str(t) for t in EventType]
    for entry in entries:
        assert set(entry) == {"type", "description", "schema", "example"}
        assert entry["description"]
    assert (await client.get("/v1/event-types")).status_code == 401


async def test_each_example_is_valid_and_the_schemas_bite(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    for entry in await catalogue(client, tenant):
        check = validator(entry)
        example = entry["example"]
        assert example["type"] == entry["type"]
        check.validate(example)
        assert entry["schema"]["properties"]["type"]["const"] == entry["type"]
        wrong_type = {**example, "type": "application.other"}
        assert not check.is_valid(wrong_type)
        assert not check.is_valid({k: v for k, v in example.items() if k != "data"})
        if entry["type"] == "webhook.test":
            assert not check.is_valid({**example, "data": {"endpointId": 7}})
        else:
            assert not check.is_valid({**example, "data": {**example["data"], "sequence": "x"}})
            data = {k: v for k, v in example["data"].items() if k != "clientId"}
            assert not check.is_valid({**example, "data": data}), entry["type"]


async def test_real_envelopes_validate(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    entries = {e["type"]: e for e in await catalogue(client, tenant)}
    endpoint = await create_endpoint(client, tenant, receiver.url)
    receiver.secrets = [endpoint["secret"]]
    tested = await client.post(f"/v1/webhooks/{endpoint['id']}/test", headers=tenant.headers)
    assert tested.json()["success"] is True
    data = {
        "clientId": "app_x",
        "externalRef": None,
        "status": "pending",
        "previousStatus": "pending",
        "sequence": 1,
        "reason": "repair",
    }
    await emit(runtime, tenant.tenant_id, "application.status.changed", data)
    received = await wait_requests(receiver, 2)
    for item in received:
        envelope = item.json()
        validator(entries[envelope["type"]]).validate(envelope)
    status_changed = next(i.json() for i in received if i.json()["type"] != "webhook.test")
    assert not validator(entries["application.submitted"]).is_valid(status_changed)


async def test_the_console_catalogue_pages(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    entries = await catalogue(client, tenant)
    await open_console(client, tenant)
    index = await client.get("/console/events")
    assert index.status_code == 200
    for entry in entries:
        assert f'href="/console/events/{entry["type"]}"' in index.text
        page = await client.get(f"/console/events/{entry['type']}")
        assert page.status_code == 200
        shown = json.dumps(entry["schema"], indent=2, ensure_ascii=False)
        assert json.loads(_pre_blocks(page.text)[1]) == json.loads(shown)
        assert json.loads(_pre_blocks(page.text)[0]) == entry["example"]


def _pre_blocks(page: str) -> list[str]:
    import html

    parts = page.split('<pre class="mono small" tabindex="0">')[1:]
    return [html.unescape(part.split("</pre>")[0]) for part in parts]
