"""Dashboard sessions: the redirect to sign-in, the session cookie, CSRF and sign-out
(docs/staff-identity.md "Sessions"; the sign-in itself is in test_staff_sign_in.py)."""

from __future__ import annotations

import httpx

from tests.pages.helpers import csrf_of, dashboard_sign_in, sign_in_with_password
from tests.support.factories import StaffFixture


async def test_pages_redirect_to_sign_in_without_a_session(client: httpx.AsyncClient) -> None:
    response = await client.get("/dashboard?status=active")
    assert response.status_code == 303
    assert response.headers["location"] == "/dashboard/sign-in?next=/dashboard%3Fstatus%3Dactive"
    page = await client.get("/dashboard/sign-in")
    assert page.status_code == 200
    assert 'for="f-email"' in page.text
    assert 'for="f-password"' in page.text
    assert 'name="token"' not in page.text
    assert page.headers["service-request-id"].startswith("req_")
    assert page.headers["cache-control"] == "no-store"


async def test_an_ended_session_cookie_is_refused_and_others_live_on(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    first = client.cookies.get("gatehouse_dashboard", path="/dashboard")
    client.cookies.clear()
    csrf = await dashboard_sign_in(client, staff)
    await client.post("/dashboard/sign-out", data={"csrf_token": csrf})
    assert (await client.get("/dashboard")).status_code == 303
    client.cookies.clear()
    client.cookies.set("gatehouse_dashboard", str(first), path="/dashboard")
    page = await client.get("/dashboard")
    assert page.status_code == 200  # the first session is alive
    await client.post("/dashboard/sign-out", data={"csrf_token": csrf_of(page.text)})
    assert (await client.get("/dashboard")).status_code == 303


async def test_sign_out_everywhere_ends_every_session(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    first = client.cookies.get("gatehouse_dashboard", path="/dashboard")
    client.cookies.clear()
    answer = await sign_in_with_password(client, staff)
    assert answer.status_code == 303
    page = await client.get("/dashboard/account")
    done = await client.post(
        "/dashboard/sign-out-everywhere", data={"csrf_token": csrf_of(page.text)}
    )
    assert done.status_code == 303
    assert (await client.get("/dashboard")).status_code == 303
    client.cookies.set("gatehouse_dashboard", str(first), path="/dashboard")
    assert (await client.get("/dashboard")).status_code == 303


async def test_cross_site_form_post_is_refused(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    csrf = await dashboard_sign_in(client, staff)
    response = await client.post(
        "/dashboard/sign-out",
        data={"csrf_token": csrf},
        headers={"Origin": "https://evil.example"},
    )
    assert response.status_code == 403
    assert (await client.get("/dashboard")).status_code == 200


async def test_static_files_are_served_and_confined(client: httpx.AsyncClient) -> None:
    css = await client.get("/static/gatehouse.css")
    assert css.status_code == 200
    assert css.headers["content-type"].startswith("text/css")
    assert (await client.get("/static/../settings.py")).status_code == 404
    assert (await client.get("/static/nothing.css")).status_code == 404
