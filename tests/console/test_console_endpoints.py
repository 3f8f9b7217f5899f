"""The console's endpoint pages against a real receiver and the real delivery worker
(docs/console.md): create (the secret shown once), refusals beside their field, the cap and
the URL rules of /v1, edit, disable, enable, delete, rotation with the overlap, a test send
with the headers sent, and the delivery history (latency, never a body or a signature)."""

from __future__ import annotations

import html
from datetime import timedelta
from typing import Any

import httpx

from gatehouse.runtime import Runtime
from gatehouse.timeutil import format_ts
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.console.pages import endpoint_id_of, field_errors, shown_secret
from tests.console.support import open_console
from tests.pages.helpers import client_with
from tests.support.audit import audit_actions
from tests.support.factories import TenantFixture, make_tenant
from tests.support.leaks import remember
from tests.webhooks.conftest import emit, wait_requests, wait_until
from tests.webhooks.receiver import Receiver


async def create(
    client: httpx.AsyncClient, csrf: str, url: str, events: str = "*", description: str = ""
) -> httpx.Response:
    return await client.post(
        "/console/webhooks",
        data={"csrf_token": csrf, "url": url, "events": events, "description": description},
    )


async def v1_endpoint(client: httpx.AsyncClient, tenant: TenantFixture, endpoint_id: str) -> Any:
    answer = await client.get(f"/v1/webhooks/{endpoint_id}", headers=tenant.headers)
    return answer.json() if answer.status_code == 200 else answer.status_code


async def test_create_shows_the_secret_once(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await open_console(client, tenant)
    answer = await create(
        client, csrf, "http://127.0.0.1:9/hooks", "application.submitted\r\n\nwebhook.test\n", "CRM"
    )
    endpoint_id = endpoint_id_of(answer)
    page = await client.get(f"/console/webhooks/{endpoint_id}")
    secret = shown_secret(page)
    assert secret is not None
    remember(secret)
    assert shown_secret(await client.get(f"/console/webhooks/{endpoint_id}")) is None
    stored = await v1_endpoint(client, tenant, endpoint_id)
    assert stored["events"] == ["application.submitted", "webhook.test"]
    assert stored["description"] == "CRM"
    listed = await client.get("/console")
    assert "http://127.0.0.1:9/hooks" in listed.text
    assert "application.submitted, webhook.test" in listed.text
    assert await audit_actions(runtime, "webhook.create") == [
        ("webhook.create", f"console:{tenant.key_id}", endpoint_id)
    ]


async def test_refusals_are_shown_beside_their_field(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    csrf = await open_console(client, tenant)
    bad_url = await create(client, csrf, "ftp://example.com/x")
    assert bad_url.status_code == 400
    assert set(field_errors(bad_url)) == {"url"}
    assert 'value="ftp://example.com/x"' in bad_url.text  # the form keeps what was typed
    bad_events = await create(client, csrf, "http://127.0.0.1:9/", "application.nope")
    assert bad_events.status_code == 400
    assert set(field_errors(bad_events)) == {"events"}
    mixed = await create(client, csrf, "http://127.0.0.1:9/", "*\napplication.submitted")
    assert set(field_errors(mixed)) == {"events"}
    empty = await create(client, csrf, "http://127.0.0.1:9/", "  \n")
    assert set(field_errors(empty)) == {"events"}
    long = await create(client, csrf, "http://127.0.0.1:9/", "*", "d" * 501)
    assert set(field_errors(long)) == {"description"}
    listed = await client.get("/v1/webhooks", headers=tenant.headers)
    assert listed.json()["data"] == []


async def test_the_endpoint_cap_holds(client: httpx.AsyncClient, tenant: TenantFixture) -> None:
    csrf = await open_console(client, tenant)
    for n in range(5):
        endpoint_id_of(await create(client, csrf, f"http://127.0.0.1:9/{n}"))
    sixth = await create(client, csrf, "http://127.0.0.1:9/6")
    assert sixth.status_code == 400
    assert "maximum of 5" in sixth.text
    assert field_errors(sixth) == {}
    listed = await client.get("/v1/webhooks", headers=tenant.headers)
    assert len(listed.json()["data"]) == 5


async def test_the_receiver_url_rules_of_v1(database_url: str) -> None:
    async with client_with(database_url, webhook_allow_private_urls=False) as (client, runtime):
        tenant = await make_tenant(runtime)
        csrf = await open_console(client, tenant)
        for url in ("http://hooks.example.com/x", "https://127.0.0.1/x", "https://u:p@a.test/"):
            refused = await create(client, csrf, url)
            assert refused.status_code == 400, url
            assert set(field_errors(refused)) == {"url"}, url
        listed = await client.get("/v1/webhooks", headers=tenant.headers)
        assert listed.json()["data"] == []


async def test_edit_disable_enable_delete(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await open_console(client, tenant)
    endpoint_id = endpoint_id_of(await create(client, csrf, "http://127.0.0.1:9/a"))
    base = f"/console/webhooks/{endpoint_id}"
    edited = await client.post(
        base,
        data={
            "csrf_token": csrf,
            "url": "http://127.0.0.1:9/b",
            "events": "application.decision.*",
            "description": "Decisions only",
        },
    )
    assert edited.status_code == 303
    assert edited.headers["location"] == base + "?done=updated"
    stored = await v1_endpoint(client, tenant, endpoint_id)
    assert stored["url"] == "http://127.0.0.1:9/b"
    assert stored["events"] == ["application.decision.*"]
    assert stored["description"] == "Decisions only"
    refused = await client.post(
        base, data={"csrf_token": csrf, "url": "http://127.0.0.1:9/c", "events": "bogus"}
    )
    assert refused.status_code == 400
    assert set(field_errors(refused)) == {"events"}
    assert (await v1_endpoint(client, tenant, endpoint_id))["url"] == "http://127.0.0.1:9/b"

    assert (await client.post(base + "/disable", data={"csrf_token": csrf})).status_code == 303
    stored = await v1_endpoint(client, tenant, endpoint_id)
    assert (stored["status"], stored["disabledReason"]) == ("disabled", "manual")
    page = await client.get(base)
    assert "manual" in page.text
    assert f'action="{base}/enable"' in page.text
    assert (await client.post(base + "/enable", data={"csrf_token": csrf})).status_code == 303
    stored = await v1_endpoint(client, tenant, endpoint_id)
    assert (stored["status"], stored["disabledReason"]) == ("enabled", None)
    deleted = await client.post(base + "/delete", data={"csrf_token": csrf})
    assert deleted.headers["location"] == "/console?done=deleted"
    assert await v1_endpoint(client, tenant, endpoint_id) == 404
    assert (await client.get(base)).status_code == 404
    actions = [a for a, actor, _ in await audit_actions(runtime, "webhook.%")]
    assert actions == [
        "webhook.create",
        "webhook.update",
        "webhook.disable",
        "webhook.enable",
        "webhook.delete",
    ]
    actors = {actor for _, actor, _ in await audit_actions(runtime, "webhook.%")}
    assert actors == {f"console:{tenant.key_id}"}


async def test_test_send_and_rotation_against_a_real_receiver(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    csrf = await open_console(client, tenant)
    endpoint_id = endpoint_id_of(await create(client, csrf, receiver.url))
    base = f"/console/webhooks/{endpoint_id}"
    first = shown_secret(await client.get(base))
    assert first is not None
    receiver.secrets = [first]

    tested = await client.post(base + "/test", data={"csrf_token": csrf})
    assert tested.status_code == 200
    (arrived,) = await wait_requests(receiver, 1)
    assert arrived.verified
    assert arrived.json()["type"] == "webhook.test"
    assert "Test send: received" in tested.text
    # Every header sent is shown, exactly as the receiver got it.
    for name in ("Gatehouse-Event-Id", "Gatehouse-Signature", "webhook-signature", "User-Agent"):
        assert f">{name}<" in tested.text, name
        assert f">{html.escape(arrived.headers[name.lower()])}<" in tested.text, name

    start = runtime.now()
    rotated = await client.post(base + "/rotate-secret", data={"csrf_token": csrf})
    assert rotated.status_code == 200
    second = shown_secret(rotated)
    assert second is not None
    assert second != first
    remember(second)
    expiry = format_ts(start + timedelta(hours=24))[:16]  # to the minute
    assert f'datetime="{expiry}' in rotated.text
    assert shown_secret(await client.get(base)) is None

    receiver.secrets = [second]  # a receiver that already moved to the new secret
    await emit(runtime, tenant.tenant_id)
    delivered = (await wait_requests(receiver, 2))[1]
    assert delivered.verified
    # Both secrets sign during the overlap: newest first.
    assert len(delivered.headers["gatehouse-signature"].split(" ")) == 2
    third = shown_secret(await client.post(base + "/rotate-secret", data={"csrf_token": csrf}))
    assert third is not None
    remember(third)
    receiver.secrets = [first]  # the oldest secret stopped signing at the second rotation
    tested = await client.post(base + "/test", data={"csrf_token": csrf})
    assert "Test send: failed" in tested.text
    assert ">401<" in tested.text
    actions = [a for a, _, _ in await audit_actions(runtime, "webhook.%")]
    assert actions.count("webhook.test") == 2
    assert actions.count("webhook.rotate_secret") == 2


async def test_the_delivery_history(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    csrf = await open_console(client, tenant)
    endpoint_id = endpoint_id_of(await create(client, csrf, receiver.url))
    base = f"/console/webhooks/{endpoint_id}"
    receiver.respond = lambda item: (503, {}, b"SECRET-BODY-OF-THE-ANSWER")
    failing = await emit(runtime, tenant.tenant_id, "application.status.changed")
    await wait_requests(receiver, 1)
    receiver.respond = None
    for _ in range(26):
        await emit(runtime, tenant.tenant_id)

    async def settled() -> bool:
        page = await client.get(base + "?status=pending")
        return "No deliveries with this status" in page.text

    await wait_until(settled, timeout=30)
    page = await client.get(base)
    assert page.status_code == 200
    assert "application.submitted" in page.text
    assert " ms</td>" in page.text  # the latency of the last attempt
    signature = receiver.snapshot()[-1].headers["gatehouse-signature"]
    for never in ("SECRET-BODY-OF-THE-ANSWER", signature, signature.split(" ")[0][3:], '"data"'):
        assert never not in page.text
    pages = [page.text]
    while "Older deliveries" in pages[-1]:
        older = pages[-1].split('<nav class="pager"')[1].split('href="')[1].split('"')[0]
        following = await client.get(base + html.unescape(older))
        assert following.status_code == 200
        pages.append(following.text)
    assert len(pages) == 4  # 27 deliveries, eight a page
    assert failing in pages[-1]  # the oldest, on the last page
    assert sum(text.count("<tr>") - 1 for text in pages) == 27
    assert ">200<" in page.text
    only_submitted = await client.get(base + "?status=succeeded")
    assert only_submitted.status_code == 200
    bad = await client.get(base + "?status=nope")
    assert bad.status_code == 400
    assert "status must be one of" in bad.text


async def test_unknown_event_type_page_and_endpoint_are_404(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    await open_console(client, tenant)
    assert (await client.get("/console/webhooks/we_nope")).status_code == 404
    assert (await client.get("/console/events/application.nope")).status_code == 404
    assert (await client.get("/console/events/application.submitted")).status_code == 200
