"""Verification callback registration applies the URL rules of webhook receivers: names
that resolve to loopback, private, link-local (metadata) or no address are refused with
400 {"message"}, and WEBHOOK_ALLOW_PRIVATE_URLS relaxes them the same way
(docs/reference/verification.md §4.1, docs/platform.md). SQLite by default, PostgreSQL
with GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import httpx
import pytest

from gatehouse.app import create_app
from gatehouse.outbound import url_safety
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.verification import VerificationClient
from tests.conftest import make_settings
from tests.support.factories import StaffFixture

REGISTER = "/verify/clients/setWebhook/clientAuth"
# What the names below resolve to (DNS is replaced at url_safety.resolve_host, the one
# lookup point, as the webhook tests do).
ADDRESSES = {
    "loopback.example.com": ["127.0.0.1"],
    "loopback6.example.com": ["::1"],
    "private.example.com": ["10.0.0.8"],
    "mixed.example.com": ["93.184.216.34", "192.168.1.10"],
    "metadata.example.com": ["169.254.169.254"],
    "mapped.example.com": ["::ffff:127.0.0.1"],
    "public.example.com": ["93.184.216.34"],
}


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> None:
    real = url_safety.resolve_host

    async def resolve(host: str, port: int) -> list[str]:
        if host in ADDRESSES:
            return ADDRESSES[host]
        return await real(host, port)  # anything else: the real resolver

    monkeypatch.setattr(url_safety, "resolve_host", resolve)


@pytest.fixture
async def strict(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    """The app with WEBHOOK_ALLOW_PRIVATE_URLS off, as in production."""
    settings = make_settings(runtime.settings.database_url, webhook_allow_private_urls=False)
    app_runtime = Runtime.build(settings)
    transport = httpx.ASGITransport(app=create_app(settings, app_runtime))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c
    await app_runtime.close()


async def new_client(client: httpx.AsyncClient, staff: StaffFixture) -> dict[str, str]:
    response = await client.post(
        "/staff/v1/verification/clients", json={"name": "Probe"}, headers=staff.headers
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


def body(created: dict[str, str], url: str) -> dict[str, str]:
    return {
        "clientUuid": created["clientUuid"],
        "clientSecret": created["clientSecret"],
        "callbackUrl": url,
        "callbackPassphrase": "correct-horse",
    }


async def stored_url(runtime: Runtime, client_uuid: str) -> str | None:
    async with runtime.db.read() as session:
        row = await session.get(VerificationClient, client_uuid)
    assert row is not None
    return row.callback_url


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("loopback.example.com", "non-public address (loopback)"),
        ("loopback6.example.com", "non-public address (loopback)"),
        ("private.example.com", "non-public address (private)"),
        ("mixed.example.com", "non-public address (private)"),
        ("metadata.example.com", "non-public address (link-local)"),
        ("mapped.example.com", "non-public address"),
        # No stub: the real resolver finds no such name.
        (f"nx-{secrets.token_hex(8)}.example.com", "does not resolve"),
    ],
)
async def test_names_resolving_to_no_public_address_are_refused(
    strict: httpx.AsyncClient,
    client: httpx.AsyncClient,
    staff: StaffFixture,
    runtime: Runtime,
    dns: None,
    host: str,
    why: str,
) -> None:
    created = await new_client(client, staff)
    response = await strict.post(REGISTER, json=body(created, f"https://{host}/callback"))
    assert response.status_code == 400
    answer = response.json()
    assert list(answer) == ["message"]
    assert answer["message"].startswith("callbackUrl is not acceptable: ")
    assert why in answer["message"]
    assert await stored_url(runtime, created["clientUuid"]) is None
    # A public name is accepted by the same rules.
    ok = await strict.post(REGISTER, json=body(created, "https://public.example.com/callback"))
    assert ok.status_code == 200, ok.text
    assert await stored_url(runtime, created["clientUuid"]) == "https://public.example.com/callback"


async def test_a_stranger_learns_nothing_about_names(strict: httpx.AsyncClient, dns: None) -> None:
    # Unknown credentials are 401 whatever the URL: the name is not looked up for them.
    for host in ("private.example.com", "public.example.com"):
        response = await strict.post(
            REGISTER,
            json={
                "clientUuid": "00000000-0000-0000-0000-000000000000",
                "clientSecret": "nope",
                "callbackUrl": f"https://{host}/callback",
                "callbackPassphrase": "correct-horse",
            },
        )
        assert response.status_code == 401
        assert response.json() == {"message": "Invalid clientUuid or clientSecret."}


async def test_allow_private_urls_relaxes_the_rules_as_for_webhooks(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime, dns: None
) -> None:
    # The test settings set WEBHOOK_ALLOW_PRIVATE_URLS: private names and addresses pass.
    created = await new_client(client, staff)
    for url in ("https://private.example.com/callback", "http://127.0.0.1:9/callback"):
        response = await client.post(REGISTER, json=body(created, url))
        assert response.status_code == 200, response.text
        assert await stored_url(runtime, created["clientUuid"]) == url
