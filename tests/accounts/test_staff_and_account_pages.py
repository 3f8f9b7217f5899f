"""The dashboard's staff page and account page (docs/staff-identity.md "For administrators",
"Your account"): invites shown once, role changes, deactivation, reactivation and resets
that end the person's session at once, who may manage whom, personal tokens made and revoked
by their owner, and new recovery codes that retire the old ones. Every form needs the
session's CSRF token."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI

from gatehouse.runtime import Runtime
from tests.pages.helpers import PASSWORD, RECOVERY_RE, csrf_of, dashboard_sign_in, next_code
from tests.support.audit import audit_actions
from tests.support.browser import SAME_ORIGIN
from tests.support.factories import StaffFixture, make_staff
from tests.support.leaks import remember

INVITE_RE = re.compile(r'id="invite-url">([^<]+)<')
TOKEN_RE = re.compile(r'id="new-staff-token">([^<]+)<')
FAILED = "Sign-in failed. Check your email, password and code."
# Times on the pages read like `24 Nov 2026, 10:05 UTC`, never as RFC 3339.
HUMAN_TIME = re.compile(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC")
RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


@pytest.fixture
async def other(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """A second browser (its own cookies)."""
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50001))
    async with httpx.AsyncClient(
        transport=transport, base_url="http://testserver", headers=SAME_ORIGIN
    ) as c:
        yield c


async def test_an_invite_from_the_staff_page_is_shown_once_and_works(
    client: httpx.AsyncClient, other: httpx.AsyncClient, runtime: Runtime
) -> None:
    admin = await make_staff(runtime, "admin")
    csrf = await dashboard_sign_in(client, admin)
    no_token = await client.post(
        "/dashboard/staff", data={"email": "ada@example.test", "role": "analyst"}
    )
    assert no_token.status_code == 403
    made = await client.post(
        "/dashboard/staff",
        data={"csrf_token": csrf, "email": "ada@example.test", "role": "analyst"},
    )
    assert made.status_code == 200, made.text
    found = INVITE_RE.search(made.text)
    assert found is not None
    url = found.group(1)
    remember(url.rsplit("/", 1)[1])
    assert url.startswith("http://testserver/dashboard/invite/")
    assert made.headers["cache-control"] == "no-store"
    # Shown once: the page does not show it again.
    again = await client.get("/dashboard/staff")
    assert "/dashboard/invite/" not in again.text
    assert "ada@example.test" in again.text
    assert "invite not used yet" in again.text
    assert HUMAN_TIME.search(again.text)  # the admin's last sign-in
    assert '<td class="small">never</td>' in again.text  # Ada's
    assert not RFC3339.search(again.text)
    assert (await other.get(urlsplit(url).path)).status_code == 200
    # An admin may not invite an admin; nobody is created.
    refused = await client.post(
        "/dashboard/staff",
        data={"csrf_token": csrf, "email": "root@example.test", "role": "admin"},
    )
    assert refused.status_code == 403
    assert "super_admin" in refused.text
    assert "root@example.test" not in (await client.get("/dashboard/staff")).text
    assert [a for a, _, _ in await audit_actions(runtime, "staff.created")] == [
        "staff.created",  # the admin, by the factory
        "staff.created",
    ]


async def test_only_admins_see_the_staff_page(client: httpx.AsyncClient, runtime: Runtime) -> None:
    analyst = await make_staff(runtime, "mlro")
    csrf = await dashboard_sign_in(client, analyst)
    assert (await client.get("/dashboard/staff")).status_code == 403
    posted = await client.post(
        "/dashboard/staff",
        data={"csrf_token": csrf, "email": "x@example.test", "role": "analyst"},
    )
    assert posted.status_code == 403


async def test_role_change_deactivation_and_reset_from_the_staff_page_end_the_session(
    client: httpx.AsyncClient, other: httpx.AsyncClient, runtime: Runtime
) -> None:
    admin = await make_staff(runtime, "admin")
    person = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, admin)
    await dashboard_sign_in(other, person)
    base = f"/dashboard/staff/{person.staff_id}"

    # A form without the session's token, or from another site, changes nothing.
    assert (await client.post(base + "/deactivate")).status_code == 403
    cross = await client.post(
        base + "/deactivate",
        data={"csrf_token": csrf},
        headers={"Origin": "https://evil.example"},
    )
    assert cross.status_code == 403
    assert (await other.get("/dashboard")).status_code == 200

    # A role change: the person's session ends; they sign in again with the new role.
    changed = await client.post(base + "/role", data={"csrf_token": csrf, "role": "mlro"})
    assert changed.status_code == 303
    assert changed.headers["location"] == "/dashboard/staff?done=role"
    assert "Role changed" in (await client.get(changed.headers["location"])).text
    assert (await other.get("/dashboard")).status_code == 303
    await dashboard_sign_in(other, person)

    # Deactivation: the session and the token end at once.
    done = await client.post(base + "/deactivate", data={"csrf_token": csrf})
    assert done.status_code == 303
    assert (await other.get("/dashboard")).status_code == 303
    assert (await other.get("/staff/v1/tokens", headers=person.headers)).status_code == 401
    other.cookies.clear()
    refused = await other.post(
        "/dashboard/sign-in", data={"email": person.email, "password": PASSWORD}
    )
    assert refused.status_code == 400
    assert FAILED in refused.text
    back = await client.post(base + "/reactivate", data={"csrf_token": csrf})
    assert back.status_code == 303
    await dashboard_sign_in(other, person)

    # A reset: a new invite, shown on the answer; the old password no longer works.
    reset = await client.post(base + "/reset", data={"csrf_token": csrf})
    assert reset.status_code == 200
    found = INVITE_RE.search(reset.text)
    assert found is not None
    remember(found.group(1).rsplit("/", 1)[1])
    assert "The account is reset." in reset.text
    assert (await other.get("/dashboard")).status_code == 303
    other.cookies.clear()
    gone = await other.post(
        "/dashboard/sign-in", data={"email": person.email, "password": PASSWORD}
    )
    assert gone.status_code == 400
    assert (await other.get(urlsplit(found.group(1)).path)).status_code == 200

    actor = f"staff:{admin.staff_id}"
    assert [
        (action, who, target)
        for action, who, target in await audit_actions(runtime, "staff.%")
        if target == person.staff_id and who == actor
    ] == [
        ("staff.role_changed", actor, person.staff_id),
        ("staff.deactivated", actor, person.staff_id),
        ("staff.reactivated", actor, person.staff_id),
        ("staff.reset", actor, person.staff_id),
    ]


async def test_an_admin_manages_neither_admins_nor_themself_on_the_staff_page(
    client: httpx.AsyncClient, other: httpx.AsyncClient, runtime: Runtime
) -> None:
    admin = await make_staff(runtime, "admin")
    peer = await make_staff(runtime, "admin")
    csrf = await dashboard_sign_in(client, admin)
    await dashboard_sign_in(other, peer)
    page = await client.get("/dashboard/staff")
    assert f"/dashboard/staff/{peer.staff_id}/deactivate" not in page.text
    assert f"/dashboard/staff/{admin.staff_id}/deactivate" not in page.text
    for target in (peer, admin):
        for action in ("deactivate", "reset"):
            answer = await client.post(
                f"/dashboard/staff/{target.staff_id}/{action}", data={"csrf_token": csrf}
            )
            assert answer.status_code in (400, 403), (target.role, action)
            assert 'role="alert"' in answer.text
    promoted = await client.post(
        f"/dashboard/staff/{peer.staff_id}/role", data={"csrf_token": csrf, "role": "analyst"}
    )
    assert promoted.status_code == 403
    assert (await other.get("/dashboard")).status_code == 200  # the peer is untouched
    assert await audit_actions(runtime, "staff.%activated") == []


async def test_personal_tokens_on_the_account_page(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    assert (
        await client.post("/dashboard/account/tokens", data={"name": "ci", "expires_in_days": "7"})
    ).status_code == 403
    made = await client.post(
        "/dashboard/account/tokens",
        data={"csrf_token": csrf, "name": "ci", "expires_in_days": "7"},
    )
    assert made.status_code == 200
    found = TOKEN_RE.search(made.text)
    assert found is not None
    token = found.group(1)
    remember(token)
    headers = {"Authorization": f"Bearer {token}"}
    listed = await client.get("/staff/v1/tokens", headers=headers)
    assert listed.status_code == 200
    mine = {t["name"]: t for t in listed.json()["data"]}
    assert set(mine) == {"ci", "First token"}
    # Shown once; the page lists it by name from then on.
    page = await client.get("/dashboard/account")
    assert token not in page.text
    assert mine["ci"]["tokenId"] in page.text
    assert HUMAN_TIME.search(page.text)
    assert '<td class="small">never</td>' in page.text  # the first token's expiry
    assert not RFC3339.search(page.text)
    # Nobody revokes another's token; the owner does, and it stops at once.
    first_token = mine["First token"]["tokenId"]
    client.cookies.clear()
    someone_else = await dashboard_sign_in(client, staff)
    foreign = await client.post(
        f"/dashboard/account/tokens/{first_token}/revoke", data={"csrf_token": someone_else}
    )
    assert foreign.status_code == 404
    assert (await client.get("/staff/v1/tokens", headers=analyst.headers)).status_code == 200
    client.cookies.clear()
    csrf = await dashboard_sign_in(client, analyst)
    revoked = await client.post(
        f"/dashboard/account/tokens/{mine['ci']['tokenId']}/revoke", data={"csrf_token": csrf}
    )
    assert revoked.status_code == 303
    assert revoked.headers["location"] == "/dashboard/account?done=revoked"
    assert (await client.get("/staff/v1/tokens", headers=headers)).status_code == 401
    assert (await client.get("/staff/v1/tokens", headers=analyst.headers)).status_code == 200
    assert [(a, who) for a, who, _ in await audit_actions(runtime, "staff_token.%")] == [
        ("staff_token.created", f"staff:{analyst.staff_id}"),
        ("staff_token.revoked", f"staff:{analyst.staff_id}"),
    ]


async def second_step(client: httpx.AsyncClient, staff: StaffFixture, code: str) -> int:
    client.cookies.clear()
    await client.post("/dashboard/sign-in", data={"email": staff.email, "password": PASSWORD})
    form = await client.get("/dashboard/sign-in/verify")
    answer = await client.post(
        "/dashboard/sign-in/verify", data={"csrf_token": csrf_of(form.text), "code": code}
    )
    return answer.status_code


async def test_new_recovery_codes_retire_the_old_ones(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    csrf = await dashboard_sign_in(client, staff)
    old = list(staff.recovery_codes)
    assert (await client.post("/dashboard/account/recovery-codes")).status_code == 403
    renewed = await client.post("/dashboard/account/recovery-codes", data={"csrf_token": csrf})
    assert renewed.status_code == 200
    assert renewed.headers["cache-control"] == "no-store"
    new = RECOVERY_RE.findall(renewed.text)
    assert len(new) == 10
    assert not set(new) & set(old)
    for code in new:
        remember(code)
    assert await second_step(client, staff, old[0]) == 400
    assert await second_step(client, staff, new[0]) == 303
    page = await client.get("/dashboard/account")
    assert new[1] not in page.text  # shown once
    assert re.search(r"Recovery codes left</dt><dd>9<", page.text)
    assert [a for a, _, _ in await audit_actions(runtime, "staff.recovery_codes_renewed")] == [
        "staff.recovery_codes_renewed"
    ]


async def test_a_code_typed_the_way_the_app_shows_it_is_accepted(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    code = next_code(staff)
    assert await second_step(client, staff, f" {code[:3]} {code[3:]} ") == 303
    assert (await client.get("/dashboard")).status_code == 200
    # Spaces do not make a spent code new again, nor a wrong one right.
    assert await second_step(client, staff, f"{code[:3]} {code[3:]}") == 400
    assert await second_step(client, staff, "123 45") == 400


async def test_the_passkey_calls_of_the_account_page_need_the_session_and_its_token(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    options_path = "/dashboard/account/passkeys/options"
    assert (await client.post(options_path)).status_code == 401  # no session
    csrf = await dashboard_sign_in(client, staff)
    bearer = await client.post(options_path, headers={**staff.headers, "x-csrf-token": csrf})
    assert bearer.status_code == 200  # the session's cookie, not the token, let it in
    client.cookies.clear()
    assert (
        await client.post(options_path, headers={**staff.headers, "x-csrf-token": csrf})
    ).status_code == 401
    csrf = await dashboard_sign_in(client, staff)
    assert (await client.post(options_path)).status_code == 403
    cross = {"x-csrf-token": csrf, "Origin": "https://evil.example"}
    assert (await client.post(options_path, headers=cross)).status_code == 403
    made = await client.post(options_path, headers={"x-csrf-token": csrf})
    assert made.status_code == 200
    assert made.headers["cache-control"] == "no-store"
    body = made.json()
    assert body["options"]["rp"]["id"] == "testserver"
    assert body["options"]["user"]["name"] == staff.email
    assert body["ticket"]
    # A credential that is no answer to the challenge adds nothing.
    refused = await client.post(
        "/dashboard/account/passkeys",
        json={"name": "laptop", "ticket": body["ticket"], "credential": {"id": "x"}},
        headers={"x-csrf-token": csrf},
    )
    assert refused.status_code == 400
    forged = await client.post(
        "/dashboard/account/passkeys",
        json={"name": "laptop", "ticket": body["ticket"] + "x", "credential": {}},
        headers={"x-csrf-token": csrf},
    )
    assert forged.status_code == 400
    assert "No passkeys yet." in (await client.get("/dashboard/account")).text
    assert await audit_actions(runtime, "staff.factor_enrolled.passkey") == []
