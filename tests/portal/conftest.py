"""Portal fixtures: a provisioned application with a sign-in link minted by the
real tenant API, and a helper that redeems it into a cookie session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.support.factories import TenantFixture


@dataclass
class Provisioned:
    client_id: str
    login_url: str
    token: str
    email: str

    @property
    def login_path(self) -> str:
        return "/portal/login/" + self.token


async def provision(client: httpx.AsyncClient, tenant: TenantFixture, **body: Any) -> Provisioned:
    payload = {"email": "owner@example.test", "externalRef": "cust-1", **body}
    response = await client.post("/v1/login-sessions", json=payload, headers=tenant.headers)
    assert response.status_code == 201, response.text
    data = response.json()
    token = data["loginUrl"].rsplit("/", 1)[1]
    return Provisioned(data["clientId"], data["loginUrl"], token, payload["email"])


async def mint(
    client: httpx.AsyncClient, tenant: TenantFixture, client_id: str, **body: Any
) -> str:
    response = await client.post(
        f"/v1/applications/{client_id}/login-sessions", json=body, headers=tenant.headers
    )
    assert response.status_code == 201, response.text
    return str(response.json()["loginUrl"]).rsplit("/", 1)[1]


async def sign_in(client: httpx.AsyncClient, token: str) -> httpx.Response:
    """POST the link; the client keeps the session cookie."""
    response = await client.post("/portal/login/" + token)
    assert response.status_code == 303, response.text
    return response


@pytest.fixture
async def provisioned(client: httpx.AsyncClient, tenant: TenantFixture) -> Provisioned:
    return await provision(client, tenant)
