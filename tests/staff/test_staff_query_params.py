"""Every staff GET route that reads query parameters refuses an unknown or a repeated one with
400 `invalid-argument` naming it (docs/reference/staff-api.md §1.5), and still answers 200 to
the parameters it documents."""

from __future__ import annotations

import httpx
import pytest

from tests.support.factories import StaffFixture

# (route, a documented query that must still be accepted)
ROUTES = [
    ("/staff/v1/tenants", "limit=1"),
    ("/staff/v1/applications", "limit=1&status=pending"),
    ("/staff/v1/applications/app_nope/audit", "limit=1"),
    ("/staff/v1/applications/app_nope/notes", "limit=1"),
    ("/staff/v1/tenants/tnt_nope/audit", "limit=1"),
    ("/staff/v1/deliveries", "limit=1&status=dead&tenantId=tnt_x"),
    ("/staff/v1/notifications", "tenantId=tnt_x"),
    ("/staff/v1/verification/customers", "limit=1&status=5&clientUuid=x&clientId=y"),
    ("/staff/v1/verification/callbacks", "limit=1&status=pending&clientUuid=x&customerUuid=y"),
]

# The routes above whose documented query is answered without looking anything up by path.
LISTS = {
    "/staff/v1/tenants",
    "/staff/v1/applications",
    "/staff/v1/deliveries",
    "/staff/v1/notifications",
    "/staff/v1/verification/customers",
    "/staff/v1/verification/callbacks",
}


def _field(response: httpx.Response) -> str:
    error = response.json()["error"]
    assert error["code"] == "invalid-argument"
    field: str = error["details"][0]["field"]
    return field


@pytest.mark.parametrize(("route", "accepted"), ROUTES)
async def test_unknown_query_parameter_is_400(
    client: httpx.AsyncClient, staff: StaffFixture, route: str, accepted: str
) -> None:
    response = await client.get(f"{route}?bogus=1", headers=staff.headers)
    assert response.status_code == 400, response.text
    assert _field(response) == "bogus"


@pytest.mark.parametrize(("route", "accepted"), ROUTES)
async def test_repeated_query_parameter_is_400(
    client: httpx.AsyncClient, staff: StaffFixture, route: str, accepted: str
) -> None:
    name = accepted.split("&")[-1].split("=")[0]
    value = accepted.split("&")[-1].split("=")[1]
    response = await client.get(f"{route}?{name}={value}&{name}={value}", headers=staff.headers)
    assert response.status_code == 400, response.text
    assert _field(response) == name
    limits = await client.get(f"{route}?limit=1&limit=2", headers=staff.headers)
    if "limit" in accepted:
        assert limits.status_code == 400, limits.text
        assert _field(limits) == "limit"


@pytest.mark.parametrize(("route", "accepted"), [r for r in ROUTES if r[0] in LISTS])
async def test_documented_query_is_still_accepted(
    client: httpx.AsyncClient, staff: StaffFixture, route: str, accepted: str
) -> None:
    response = await client.get(f"{route}?{accepted}", headers=staff.headers)
    assert response.status_code == 200, response.text
    assert "data" in response.json()


async def test_the_check_comes_after_authentication(client: httpx.AsyncClient) -> None:
    response = await client.get("/staff/v1/tenants?bogus=1")
    assert response.status_code == 401
