"""The staff lifecycle and personal tokens on the staff API (docs/reference/staff-api.md §9):
invites on creation, the staff list, role changes, deactivation, reactivation, resets, and
tokens that are listed, made, revoked and expire."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.dashboard import DashboardSession
from gatehouse.storage.tables.staff_identity import StaffToken
from gatehouse.timeutil import parse_ts
from tests.pages.helpers import PASSWORD, dashboard_sign_in
from tests.support.audit import audit_actions
from tests.support.factories import StaffFixture, make_staff
from tests.support.leaks import remember


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, object]:
    assert response.status_code == status, response.text
    error: dict[str, object] = response.json()["error"]
    assert error["code"] == code
    return error


async def test_create_returns_an_invite_valid_for_72_hours(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    before = datetime.now(UTC)
    response = await client.post(
        "/staff/v1/staff",
        json={"email": "Ada@Example.TEST", "role": "analyst"},
        headers=staff.headers,
    )
    assert response.status_code == 201, response.text
    body = response.json()
    remember(body["token"])
    remember(body["inviteUrl"].rsplit("/", 1)[1])
    assert set(body) == {"staffId", "email", "role", "token", "inviteUrl", "inviteExpiresAt"}
    assert body["inviteUrl"].startswith("http://testserver/dashboard/invite/")
    expires = parse_ts(body["inviteExpiresAt"])
    assert expires is not None
    assert timedelta(hours=72) <= expires - before <= timedelta(hours=72, minutes=1)
    # The invite page opens; the token works on the staff API at once.
    assert (await client.get(urlsplit(body["inviteUrl"]).path)).status_code == 200
    me = await client.get("/staff/v1/tokens", headers={"Authorization": f"Bearer {body['token']}"})
    assert me.status_code == 200
    assert [t["name"] for t in me.json()["data"]] == ["First token"]


async def test_the_staff_list(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    analyst = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, analyst)
    listed = await client.get("/staff/v1/staff", headers=staff.headers)
    assert listed.status_code == 200
    rows = {row["staffId"]: row for row in listed.json()["data"]}
    assert set(rows[analyst.staff_id]) >= {
        "staffId",
        "email",
        "role",
        "status",
        "createdAt",
        "lastSignInAt",
        "mfa",
    }
    assert rows[analyst.staff_id]["mfa"] is True
    assert rows[analyst.staff_id]["factors"] == ["totp"]
    assert rows[analyst.staff_id]["lastSignInAt"] is not None
    assert rows[staff.staff_id]["mfa"] is False
    assert rows[staff.staff_id]["lastSignInAt"] is None
    assert rows[staff.staff_id]["status"] == "active"
    assert_error(
        await client.get("/staff/v1/staff", headers=analyst.headers), 403, "permission-denied"
    )


@pytest.mark.parametrize(
    ("actor_role", "target_role", "new_role", "status"),
    [
        ("admin", "analyst", "mlro", 200),
        ("admin", "mlro", "admin", 403),  # granting admin needs super_admin
        ("admin", "admin", "analyst", 403),  # managing an admin needs super_admin
        ("super_admin", "admin", "analyst", 200),
        ("super_admin", "analyst", "super_admin", 200),
    ],
)
async def test_who_may_change_a_role(
    client: httpx.AsyncClient,
    runtime: Runtime,
    actor_role: str,
    target_role: str,
    new_role: str,
    status: int,
) -> None:
    actor, target = await make_staff(runtime, actor_role), await make_staff(runtime, target_role)
    response = await client.patch(
        f"/staff/v1/staff/{target.staff_id}", json={"role": new_role}, headers=actor.headers
    )
    assert response.status_code == status, response.text
    if status == 200:
        assert response.json()["role"] == new_role
        changed = ("staff.role_changed", f"staff:{actor.staff_id}", target.staff_id)
        assert changed in await audit_actions(runtime, "staff.%")


async def test_bad_role_unknown_staff_and_oneself(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    assert_error(
        await client.patch(
            f"/staff/v1/staff/{staff.staff_id}x", json={"role": "analyst"}, headers=staff.headers
        ),
        404,
        "not-found",
    )
    error = assert_error(
        await client.patch(
            f"/staff/v1/staff/{staff.staff_id}", json={"role": "owner"}, headers=staff.headers
        ),
        400,
        "invalid-argument",
    )
    assert error["details"] == [{"field": "role", "issue": "unknown role"}]
    assert_error(
        await client.patch(
            f"/staff/v1/staff/{staff.staff_id}", json={"role": "analyst"}, headers=staff.headers
        ),
        400,
        "failed-precondition",
    )
    assert_error(
        await client.post(f"/staff/v1/staff/{staff.staff_id}/deactivate", headers=staff.headers),
        400,
        "failed-precondition",
    )


async def test_a_role_change_ends_every_session(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    analyst = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, analyst)
    same = await client.patch(
        f"/staff/v1/staff/{analyst.staff_id}", json={"role": "analyst"}, headers=staff.headers
    )
    assert same.status_code == 200
    assert (await client.get("/dashboard")).status_code == 200  # no change, session kept
    changed = await client.patch(
        f"/staff/v1/staff/{analyst.staff_id}", json={"role": "mlro"}, headers=staff.headers
    )
    assert changed.status_code == 200
    assert (await client.get("/dashboard")).status_code == 303
    # The token keeps working, with the new role.
    assert (await client.get("/staff/v1/tenants", headers=analyst.headers)).status_code == 200


async def test_deactivation_ends_sessions_and_revokes_tokens_at_once(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    analyst = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, analyst)
    extra = await client.post("/staff/v1/tokens", json={"name": "ci"}, headers=analyst.headers)
    assert extra.status_code == 201
    extra_token = extra.json()["token"]
    remember(extra_token)
    done = await client.post(
        f"/staff/v1/staff/{analyst.staff_id}/deactivate", headers=staff.headers
    )
    assert done.status_code == 200
    assert done.json()["status"] == "deactivated"
    assert (await client.get("/dashboard")).status_code == 303
    for token in (analyst.token, extra_token):
        denied = await client.get("/staff/v1/tenants", headers={"Authorization": f"Bearer {token}"})
        assert_error(denied, 401, "unauthorized")
    async with runtime.db.read() as session:
        open_sessions = (
            await session.scalars(
                select(DashboardSession.id).where(
                    DashboardSession.staff_id == analyst.staff_id,
                    DashboardSession.ended_at.is_(None),
                )
            )
        ).all()
        revoked = (
            await session.scalars(
                select(StaffToken.revoked_at).where(StaffToken.staff_id == analyst.staff_id)
            )
        ).all()
    assert open_sessions == []
    assert all(r is not None for r in revoked)
    assert len(revoked) == 2

    # Reactivated: signs in again, but the revoked tokens stay revoked.
    again = await client.post(
        f"/staff/v1/staff/{analyst.staff_id}/reactivate", headers=staff.headers
    )
    assert again.status_code == 200
    assert again.json()["status"] == "active"
    assert_error(
        await client.get("/staff/v1/tenants", headers=analyst.headers), 401, "unauthorized"
    )
    client.cookies.clear()
    await dashboard_sign_in(client, analyst)
    actions = [a for a, _, _ in await audit_actions(runtime, "staff.%activated")]
    assert actions == ["staff.deactivated", "staff.reactivated"]


async def test_reset_clears_the_password_and_factors_and_issues_a_new_invite(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    analyst = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, analyst)
    reset = await client.post(f"/staff/v1/staff/{analyst.staff_id}/reset", headers=staff.headers)
    assert reset.status_code == 200, reset.text
    body = reset.json()
    remember(body["inviteUrl"].rsplit("/", 1)[1])
    assert set(body) == {"inviteUrl", "inviteExpiresAt"}
    assert (await client.get("/dashboard")).status_code == 303  # the session ended
    client.cookies.clear()
    refused = await client.post(
        "/dashboard/sign-in", data={"email": analyst.email, "password": PASSWORD}
    )
    assert refused.status_code == 400  # the password is gone
    assert (await client.get(urlsplit(analyst.invite_url).path)).status_code == 410
    listed = {
        r["staffId"]: r
        for r in (await client.get("/staff/v1/staff", headers=staff.headers)).json()["data"]
    }
    assert listed[analyst.staff_id]["mfa"] is False
    # The new invite starts over: a new password and a new authenticator.
    analyst.invite_url, analyst.password, analyst.last_totp_step = body["inviteUrl"], None, 0
    await dashboard_sign_in(client, analyst)
    assert ("staff.reset", f"staff:{staff.staff_id}", analyst.staff_id) in await audit_actions(
        runtime, "staff.reset"
    )


async def test_personal_tokens_are_listed_made_and_revoked(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    analyst = await make_staff(runtime, "analyst")
    made = await client.post(
        "/staff/v1/tokens", json={"name": " laptop ", "expiresInDays": 7}, headers=analyst.headers
    )
    assert made.status_code == 201, made.text
    body = made.json()
    remember(body["token"])
    assert set(body) == {"tokenId", "token", "name", "expiresAt"}
    assert body["name"] == "laptop"
    assert body["tokenId"].startswith("stk_")
    assert body["token"].startswith("staff_" + body["tokenId"].removeprefix("stk_") + "_")
    expires = parse_ts(body["expiresAt"])
    assert expires is not None
    assert timedelta(days=6, hours=23) < expires - datetime.now(UTC)
    mine = {"Authorization": f"Bearer {body['token']}"}
    listed = (await client.get("/staff/v1/tokens", headers=mine)).json()["data"]
    assert [(t["name"], t["status"]) for t in listed] == [
        ("laptop", "active"),
        ("First token", "active"),
    ]
    assert all("token" not in t for t in listed)
    # Nobody else's tokens: not listed, not revocable.
    others = (await client.get("/staff/v1/tokens", headers=staff.headers)).json()["data"]
    assert body["tokenId"] not in {t["tokenId"] for t in others}
    assert_error(
        await client.post(f"/staff/v1/tokens/{body['tokenId']}/revoke", headers=staff.headers),
        404,
        "not-found",
    )
    revoked = await client.post(
        f"/staff/v1/tokens/{body['tokenId']}/revoke", headers=analyst.headers
    )
    assert revoked.status_code == 200
    assert revoked.json()["status"] == "revoked"
    assert_error(await client.get("/staff/v1/tokens", headers=mine), 401, "unauthorized")
    assert (await client.get("/staff/v1/tokens", headers=analyst.headers)).status_code == 200
    assert [a for a, _, _ in await audit_actions(runtime, "staff_token.%")] == [
        "staff_token.created",
        "staff_token.revoked",
    ]


async def test_a_token_stops_working_when_it_expires(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    made = await client.post("/staff/v1/tokens", json={"name": "short"}, headers=staff.headers)
    token = made.json()["token"]
    remember(token)
    headers = {"Authorization": f"Bearer {token}"}
    assert (await client.get("/staff/v1/tokens", headers=headers)).status_code == 200
    later = datetime.now(UTC) + timedelta(days=90, seconds=5)  # the default lifetime
    runtime.clock = lambda: later
    assert_error(await client.get("/staff/v1/tokens", headers=headers), 401, "unauthorized")
    listed = (await client.get("/staff/v1/tokens", headers=staff.headers)).json()["data"]
    assert {t["name"]: t["status"] for t in listed}["short"] == "expired"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": "  "}, "name"),
        ({"name": "x", "expiresInDays": 0}, "expiresInDays"),
        ({"name": "x", "expiresInDays": 366}, "expiresInDays"),
        ({"name": "x", "expiresInDays": True}, "expiresInDays"),
        ({"name": "x", "expiresInDays": "7"}, "expiresInDays"),
    ],
)
async def test_bad_token_bodies_are_refused(
    client: httpx.AsyncClient,
    staff: StaffFixture,
    runtime: Runtime,
    body: dict[str, object],
    field: str,
) -> None:
    error = assert_error(
        await client.post("/staff/v1/tokens", json=body, headers=staff.headers),
        400,
        "invalid-argument",
    )
    assert field in str(error.get("details"))
    async with runtime.db.read() as session:
        assert len((await session.scalars(select(StaffToken))).all()) == 1  # the first only
