"""Dashboard sign-in, session cookie, CSRF and sign-out (issue 6)."""

from __future__ import annotations

import httpx
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.storage.tables.dashboard import DashboardSession
from tests.pages.helpers import csrf_of, dashboard_sign_in
from tests.support.factories import StaffFixture


async def test_pages_redirect_to_sign_in_without_a_session(client: httpx.AsyncClient) -> None:
    response = await client.get("/dashboard?status=active")
    assert response.status_code == 303
    assert response.headers["location"] == "/dashboard/sign-in?next=/dashboard%3Fstatus%3Dactive"
    page = await client.get("/dashboard/sign-in")
    assert page.status_code == 200
    assert 'for="f-token"' in page.text
    assert page.headers["service-request-id"].startswith("req_")
    assert page.headers["cache-control"] == "no-store"


async def test_bad_token_shows_the_error_beside_the_field(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    for token in ("", "nonsense", "staff_aaaaaaaaaaaa_" + "b" * 40):
        response = await client.post("/dashboard/sign-in", data={"token": token})
        assert response.status_code == 400
        assert 'class="field-error" id="f-token-error"' in response.text
        assert "set-cookie" not in response.headers
    async with runtime.db.read() as session:
        assert (await session.execute(select(DashboardSession))).first() is None


async def test_sign_in_sets_a_strict_httponly_cookie_and_sign_out_ends_it(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    response = await client.post(
        "/dashboard/sign-in", data={"token": staff.token, "next": "/dashboard/tenants"}
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/dashboard/tenants"
    cookie = response.headers["set-cookie"]
    assert "gatehouse_dashboard=" in cookie
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie or "samesite=strict" in cookie.lower()
    assert "Secure" not in cookie  # PUBLIC_URL is http in tests
    assert staff.token not in cookie
    page = await client.get("/dashboard")
    assert page.status_code == 200
    assert staff.email in page.text
    csrf = csrf_of(page.text)

    # A sign-out without the CSRF token is refused and keeps the session.
    refused = await client.post("/dashboard/sign-out", data={"csrf_token": "wrong"})
    assert refused.status_code == 403
    assert (await client.get("/dashboard")).status_code == 200

    done = await client.post("/dashboard/sign-out", data={"csrf_token": csrf})
    assert done.status_code == 303
    async with runtime.db.read() as session:
        record = (await session.execute(select(DashboardSession))).scalar_one()
        trail = (
            await session.execute(
                select(AuditEntry.action, AuditEntry.actor)
                .where(AuditEntry.action.like("dashboard.%"))
                .order_by(AuditEntry.at, AuditEntry.id)
            )
        ).all()
    assert record.ended_at is not None
    assert sorted(tuple(row) for row in trail) == [
        ("dashboard.sign_in", f"staff:{staff.staff_id}"),
        ("dashboard.sign_out", f"staff:{staff.staff_id}"),
    ]
    # The old cookie no longer opens anything, even if a browser kept it.
    client.cookies.set("gatehouse_dashboard", "x" * 48, path="/dashboard")
    assert (await client.get("/dashboard")).status_code == 303


async def test_ended_session_cookie_is_refused(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    response = await client.post("/dashboard/sign-in", data={"token": staff.token})
    cookie_value = response.cookies["gatehouse_dashboard"]
    csrf = await dashboard_sign_in(client, staff.token)
    await client.post("/dashboard/sign-out", data={"csrf_token": csrf})
    client.cookies.clear()
    client.cookies.set("gatehouse_dashboard", cookie_value, path="/dashboard")
    assert (await client.get("/dashboard")).status_code == 200  # the first session is alive
    csrf_first = csrf_of((await client.get("/dashboard")).text)
    await client.post("/dashboard/sign-out", data={"csrf_token": csrf_first})
    assert (await client.get("/dashboard")).status_code == 303


async def test_cross_site_form_post_is_refused(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    csrf = await dashboard_sign_in(client, staff.token)
    response = await client.post(
        "/dashboard/sign-out",
        data={"csrf_token": csrf},
        headers={"Origin": "https://evil.example"},
    )
    assert response.status_code == 403
    assert (await client.get("/dashboard")).status_code == 200


async def test_next_only_follows_dashboard_paths(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    for target in ("https://evil.example/", "//evil.example", "/portal"):
        client.cookies.clear()
        response = await client.post(
            "/dashboard/sign-in", data={"token": staff.token, "next": target}
        )
        assert response.headers["location"] == "/dashboard"


async def test_static_files_are_served_and_confined(client: httpx.AsyncClient) -> None:
    css = await client.get("/static/gatehouse.css")
    assert css.status_code == 200
    assert css.headers["content-type"].startswith("text/css")
    assert (await client.get("/static/../settings.py")).status_code == 404
    assert (await client.get("/static/nothing.css")).status_code == 404
