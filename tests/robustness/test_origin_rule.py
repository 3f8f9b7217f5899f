"""One origin rule for the portal and the dashboard (docs/reference/portal.md §6,
docs/case-work.md): an unsafe request must show PUBLIC_URL's origin, or its own, in its
`Origin` header or, without one, in its `Referer`; neither, or either naming another origin,
is 403.
"""

from __future__ import annotations

import httpx
import pytest

from tests.pages.helpers import csrf_of, dashboard_sign_in
from tests.portal.conftest import provision
from tests.support.factories import StaffFixture, TenantFixture

OWN = "http://testserver"
OTHER = "http://evil.example"

# (headers, accepted): the client's default Origin (its own) is removed first.
CASES = [
    ({}, False),
    ({"Origin": OWN}, True),
    ({"Origin": OWN, "Referer": OWN + "/portal/status"}, True),
    ({"Referer": OWN + "/portal/status"}, True),
    ({"Referer": OWN + ":80/dashboard"}, True),
    ({"Origin": "null"}, False),
    ({"Origin": OTHER}, False),
    ({"Origin": "https://testserver"}, False),
    ({"Origin": OWN + ":8080"}, False),
    ({"Referer": OTHER + "/page"}, False),
    ({"Origin": OWN, "Referer": OTHER + "/page"}, False),
    ({"Origin": OTHER, "Referer": OWN + "/portal"}, False),
]


async def post_as(
    client: httpx.AsyncClient, path: str, headers: dict[str, str], **kwargs: object
) -> httpx.Response:
    request = client.build_request("POST", path, **kwargs)  # type: ignore[arg-type]
    del request.headers["origin"]
    request.headers.update(headers)
    return await client.send(request)


@pytest.mark.parametrize(("headers", "accepted"), CASES)
async def test_the_portal_pages_and_json_routes_follow_the_rule(
    client: httpx.AsyncClient, tenant: TenantFixture, headers: dict[str, str], accepted: bool
) -> None:
    made = await provision(client, tenant)
    signed = await post_as(client, made.login_path, headers)
    if not accepted:
        # A page route: the refusal page, not the JSON error body.
        assert signed.status_code == 403, signed.text[:300]
        assert signed.headers["content-type"].startswith("text/html")
        assert "Cross-site requests are not accepted." in signed.text
        assert "gatehouse_session" not in signed.headers.get("set-cookie", "")
        return
    assert signed.status_code == 303, signed.text[:300]
    # The portal's own pages (a form) and its JSON routes, signed in.
    language = await post_as(client, "/portal/language", headers, data={"lang": "de"})
    assert language.status_code == 303, language.text[:300]
    out = await post_as(client, "/portal/api/logout", headers)
    assert out.status_code == 204, out.text[:300]


@pytest.mark.parametrize(("headers", "accepted"), CASES)
async def test_a_signed_in_portal_session_is_refused_without_its_origin(
    client: httpx.AsyncClient, tenant: TenantFixture, headers: dict[str, str], accepted: bool
) -> None:
    made = await provision(client, tenant)
    assert (await client.post(made.login_path)).status_code == 303
    language = await post_as(client, "/portal/language", headers, data={"lang": "de"})
    out = await post_as(client, "/portal/api/logout", headers)
    if accepted:
        assert language.status_code == 303, language.text[:300]
        assert out.status_code == 204, out.text[:300]
        return
    assert language.status_code == 403
    assert language.headers["content-type"].startswith("text/html")
    assert out.status_code == 403
    assert out.json()["error"]["code"] == "permission-denied"
    # The session lives on: the refused logout ended nothing.
    assert (await client.get("/portal/api/me")).status_code == 200


@pytest.mark.parametrize(("headers", "accepted"), CASES)
async def test_the_dashboard_follows_the_same_rule(
    client: httpx.AsyncClient, staff: StaffFixture, headers: dict[str, str], accepted: bool
) -> None:
    await dashboard_sign_in(client, staff)
    page = await client.get("/dashboard/tenants")
    assert page.status_code == 200
    token = csrf_of(page.text)
    made = await post_as(
        client, "/dashboard/tenants", headers, data={"csrf_token": token, "name": "Origin Co"}
    )
    if accepted:
        assert made.status_code == 303, made.text[:300]
    else:
        assert made.status_code == 403, made.text[:300]
        assert made.headers["content-type"].startswith("text/html")
    listed = await client.get("/dashboard/tenants")
    assert ("Origin Co" in listed.text) is accepted


async def test_safe_methods_need_no_origin(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    made = await provision(client, tenant)
    assert (await client.post(made.login_path)).status_code == 303
    request = client.build_request("GET", "/portal/api/me")
    del request.headers["origin"]
    assert (await client.send(request)).status_code == 200


@pytest.mark.parametrize(
    ("headers", "accepted"),
    [
        # The address the browser used (Host) counts as well as PUBLIC_URL's: a reader who
        # opened http://localhost:8000 while PUBLIC_URL names 127.0.0.1 can sign in.
        ({"Host": "localhost:8000", "Origin": "http://localhost:8000"}, True),
        ({"Host": "localhost:8000", "Referer": "http://localhost:8000/portal"}, True),
        ({"Host": "localhost:8000", "Origin": "http://localhost:8001"}, False),
        ({"Host": "localhost:8000", "Origin": OTHER}, False),
        ({"Host": "localhost:8000", "Origin": "http://localhost:8000", "Referer": OTHER}, False),
    ],
)
async def test_the_address_the_browser_used_is_its_own_origin(
    client: httpx.AsyncClient, tenant: TenantFixture, headers: dict[str, str], accepted: bool
) -> None:
    made = await provision(client, tenant)
    signed = await post_as(client, made.login_path, headers)
    assert signed.status_code == (303 if accepted else 403), signed.text[:300]
