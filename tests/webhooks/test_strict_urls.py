"""URL rules at registration in strict mode (docs/reference/webhooks.md §4.2, §6), DNS stubbed."""

from __future__ import annotations

import httpx
import pytest

from gatehouse.outbound import url_safety
from gatehouse.settings import Settings
from tests.conftest import make_settings
from tests.support.factories import TenantFixture


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(database_url, webhook_allow_private_urls=False)


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/in",
        "https://hooks.example.com:8443/in",
        "https://93.184.216.34/in",
        "https://user@hooks.example.com/in",
        "https://hooks.example.com/in#x",
        "https://localhost/in",
        "https://private.example.com/in",
        "https://nowhere.example.com/in",
    ],
)
async def test_strict_registration_refuses_unsafe_urls(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    monkeypatch: pytest.MonkeyPatch,
    url: str,
) -> None:
    async def fake_resolve(host: str, port: int) -> list[str]:
        if host == "private.example.com":
            return ["10.0.0.8"]
        if host == "nowhere.example.com":
            raise url_safety.UnsafeUrl("url host does not resolve")
        return ["93.184.216.34"]

    monkeypatch.setattr(url_safety, "resolve_host", fake_resolve)
    response = await client.post(
        "/v1/webhooks", json={"url": url, "events": ["*"]}, headers=tenant.headers
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid-argument"
    assert error["details"][0]["field"] == "url"
    ok = await client.post(
        "/v1/webhooks",
        json={"url": "https://hooks.example.com/in", "events": ["*"]},
        headers=tenant.headers,
    )
    assert ok.status_code == 201
