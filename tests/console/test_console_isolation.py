"""Every console route keeps to the session's tenant, and every post needs the session's CSRF
token and our own origin (docs/console.md): another tenant's endpoint is a 404 page on every
route and stays as it was; a post without the token, with a wrong one, from a foreign origin
or showing no origin at all is refused with 403 and changes nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from gatehouse.applications.service.provisioning import create_application
from gatehouse.audit.context import WriteContext
from gatehouse.domain.identity import normalize_applicant
from gatehouse.domain.principals import TenantPrincipal
from gatehouse.runtime import Runtime
from tests.console.pages import endpoint_id_of
from tests.console.support import open_console
from tests.support.factories import TenantFixture, make_tenant

ENDPOINT_POSTS = ("", "/disable", "/enable", "/delete", "/rotate-secret", "/test")
EDIT = {"url": "http://127.0.0.1:9/changed", "events": "*", "description": "changed"}


async def endpoint_of(client: httpx.AsyncClient, tenant: TenantFixture) -> dict[str, Any]:
    answer = await client.post(
        "/v1/webhooks",
        json={"url": "http://127.0.0.1:9/other", "events": ["*"], "description": "theirs"},
        headers=tenant.headers,
    )
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    body.pop("secret")
    return body


async def state_of(client: httpx.AsyncClient, tenant: TenantFixture, endpoint_id: str) -> Any:
    answer = await client.get(f"/v1/webhooks/{endpoint_id}", headers=tenant.headers)
    assert answer.status_code == 200
    return answer.json()


async def provision(runtime: Runtime, tenant: TenantFixture, email: str) -> str:
    principal = TenantPrincipal(
        tenant.tenant_id, tenant.key_id, frozenset({"applications:write"}), "active"
    )
    ctx = WriteContext.of(principal, None, runtime.now())
    applicant = normalize_applicant(email, None, "Other Co")
    async with runtime.db.transaction() as connection:
        _status, view = await create_application(
            connection, runtime, ctx, principal, applicant, None
        )
    return str(view["clientId"])


async def test_another_tenants_endpoint_on_every_route(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    other = await make_tenant(runtime, name="Other")
    theirs = await endpoint_of(client, other)
    their_app = await provision(runtime, other, "other@example.test")
    csrf = await open_console(client, tenant)
    base = f"/console/webhooks/{theirs['id']}"
    page = await client.get(base)
    assert page.status_code == 404
    assert "Not found" in page.text
    assert (await client.get(base + "?status=dead")).status_code == 404
    for suffix in ENDPOINT_POSTS:
        refused = await client.post(base + suffix, data={"csrf_token": csrf, **EDIT})
        assert refused.status_code == 404, suffix
        assert "theirs" not in refused.text
    assert await state_of(client, other, theirs["id"]) == theirs
    for path in ("/console", "/console/applications", "/console/events"):
        shown = await client.get(path)
        assert shown.status_code == 200
        assert theirs["id"] not in shown.text
        assert their_app not in shown.text
    mine = await provision(runtime, tenant, "mine@example.test")
    assert mine in (await client.get("/console/applications")).text


async def test_the_application_list_filters_and_pages(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    made = [await provision(runtime, tenant, f"a{n}@example.test") for n in range(3)]
    await open_console(client, tenant)
    first = await client.get("/console/applications?limit=2")
    assert first.status_code == 200
    assert "Next page" in first.text
    shown = [client_id for client_id in made if client_id in first.text]
    assert len(shown) == 2
    cursor = first.text.split("cursor=")[1].split('"')[0]
    second = await client.get(f"/console/applications?limit=2&cursor={cursor}")
    assert [c for c in made if c in second.text] == [c for c in made if c not in shown]
    assert (await client.get("/console/applications?status=active")).text.count("app_") == 0
    pending = await client.get("/console/applications?status=pending")
    assert all(client_id in pending.text for client_id in made)
    for bad in ("status=nope", "cursor=forged", "limit=500", "colour=red"):
        refused = await client.get(f"/console/applications?{bad}")
        assert refused.status_code == 400, bad


POSTS = [
    ("/console/webhooks", {"url": "http://127.0.0.1:9/new", "events": "*"}),
    *[(f"/console/webhooks/{{id}}{suffix}", EDIT) for suffix in ENDPOINT_POSTS],
    ("/console/sign-out", {}),
]


OURS = {"Origin": "http://testserver"}


@pytest.mark.parametrize(
    ("headers", "token"),
    [
        (OURS, None),
        (OURS, "wrong"),
        ({"Origin": "https://evil.example"}, "right"),
        ({"Origin": "null"}, "right"),
        ({"Referer": "https://evil.example/page"}, "right"),
        ({"Origin": "http://testserver", "Referer": "https://evil.example/page"}, "right"),
        ({}, "right"),
    ],
    ids=[
        "no token",
        "wrong token",
        "foreign origin",
        "null origin",
        "foreign referer",
        "our origin beside a foreign referer",
        "no origin and no referer",
    ],
)
async def test_posts_need_the_token_and_our_origin(
    client: httpx.AsyncClient,
    app: FastAPI,
    tenant: TenantFixture,
    headers: dict[str, str],
    token: str | None,
) -> None:
    csrf = await open_console(client, tenant)
    made = await client.post(
        "/console/webhooks", data={"csrf_token": csrf, "url": "http://127.0.0.1:9/", "events": "*"}
    )
    endpoint_id = endpoint_id_of(made)
    before = await state_of(client, tenant, endpoint_id)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50001))
    async with httpx.AsyncClient(
        transport=transport, base_url="http://testserver", headers=headers
    ) as bare:
        bare.cookies.update(client.cookies)
        for path, fields in POSTS:
            data = dict(fields)
            if token is not None:
                data["csrf_token"] = csrf if token == "right" else token
            refused = await bare.post(path.format(id=endpoint_id), data=data)
            assert refused.status_code == 403, (path, refused.status_code)
    assert await state_of(client, tenant, endpoint_id) == before
    listed = await client.get("/v1/webhooks", headers=tenant.headers)
    assert len(listed.json()["data"]) == 1
    assert (await client.get("/console")).status_code == 200  # the session is still on
