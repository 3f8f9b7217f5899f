"""Invites that can no longer be used, and passkeys that fail at sign-in
(docs/staff-identity.md "The invite", "Lockout and limits"): an invite works for 72 hours and
not for a deactivated person; a failed passkey counts like a wrong code, gets the same answer,
and its challenge is good for one try."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import httpx
from sqlalchemy import select

from gatehouse.accounts.sign_in import LOCK_AFTER
from gatehouse.dashboard.sign_in_http import SIGN_IN_FAILED
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.storage.tables.staff_identity import StaffCredential
from tests.pages.helpers import PASSWORD, csrf_of, dashboard_sign_in
from tests.support.factories import StaffFixture, make_staff

OPTIONS = "/dashboard/sign-in/passkey/options"
PASSKEY = "/dashboard/sign-in/passkey"


async def audited(runtime: Runtime, action: str) -> list[str]:
    async with runtime.db.read() as session:
        rows = await session.scalars(
            select(AuditEntry.target)
            .where(AuditEntry.action == action)
            .order_by(AuditEntry.at, AuditEntry.id)
        )
    return list(rows)


async def test_an_invite_works_for_72_hours_and_not_after(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    path = urlsplit(staff.invite_url).path
    made = datetime.now(UTC)
    runtime.clock = lambda: made + timedelta(hours=72) - timedelta(minutes=1)
    assert (await client.get(path)).status_code == 200
    runtime.clock = lambda: made + timedelta(hours=72, seconds=1)
    assert (await client.get(path)).status_code == 410
    late = await client.post(path, data={"password": PASSWORD, "password_confirm": PASSWORD})
    assert late.status_code == 410
    assert "no longer valid" in late.text
    assert "set-cookie" not in late.headers
    async with runtime.db.read() as session:
        credential = await session.get(StaffCredential, staff.staff_id)
    assert credential is None or credential.password_hash is None
    assert await audited(runtime, "staff.invite_used") == []


async def test_the_invite_of_a_deactivated_person_is_gone_even_after_reactivation(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    person = await make_staff(runtime, "analyst")
    path = urlsplit(person.invite_url).path
    assert (await client.get(path)).status_code == 200
    base = f"/staff/v1/staff/{person.staff_id}"
    assert (await client.post(base + "/deactivate", headers=staff.headers)).status_code == 200
    assert (await client.get(path)).status_code == 410
    used = await client.post(path, data={"password": PASSWORD, "password_confirm": PASSWORD})
    assert used.status_code == 410
    # Reactivation does not bring the invite back: a reset issues a new one.
    assert (await client.post(base + "/reactivate", headers=staff.headers)).status_code == 200
    assert (await client.get(path)).status_code == 410
    reset = await client.post(base + "/reset", headers=staff.headers)
    assert reset.status_code == 200
    assert (await client.get(urlsplit(reset.json()["inviteUrl"]).path)).status_code == 200


def a_forged_assertion(challenge: str) -> dict[str, object]:
    """An assertion of a credential Gatehouse never enrolled."""
    return {
        "id": "bm90LWEtcmVhbC1wYXNza2V5",
        "rawId": "bm90LWEtcmVhbC1wYXNza2V5",
        "type": "public-key",
        "response": {
            "clientDataJSON": challenge,
            "authenticatorData": "AAAA",
            "signature": "AAAA",
            "userHandle": None,
        },
    }


async def test_a_failed_passkey_counts_like_a_wrong_code_and_locks_the_account(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    client.cookies.clear()
    first = await client.post(
        "/dashboard/sign-in", data={"email": staff.email, "password": PASSWORD}
    )
    assert first.headers["location"] == "/dashboard/sign-in/verify"
    form = await client.get("/dashboard/sign-in/verify")
    headers = {"x-csrf-token": csrf_of(form.text)}

    # Without the flow's CSRF token, or from another site: refused, nothing counted.
    assert (await client.post(OPTIONS)).status_code == 403
    cross = {**headers, "Origin": "https://evil.example"}
    assert (await client.post(OPTIONS, headers=cross)).status_code == 403
    # An assertion sent without asking for a challenge first proves nothing and counts nothing.
    early = await client.post(PASSKEY, json={"credential": a_forged_assertion("")}, headers=headers)
    assert early.status_code == 400
    assert await audited(runtime, "dashboard.sign_in_failed") == []

    for attempt in range(1, LOCK_AFTER + 1):
        options = await client.post(OPTIONS, headers=headers)
        assert options.status_code == 200, options.text
        assert options.headers["cache-control"] == "no-store"
        challenge = options.json()["options"]["challenge"]
        failed = await client.post(
            PASSKEY, json={"credential": a_forged_assertion(challenge)}, headers=headers
        )
        assert failed.status_code == 400
        assert failed.json() == {"message": SIGN_IN_FAILED, "restart": attempt == LOCK_AFTER}
        assert "gatehouse_dashboard=" not in failed.headers.get("set-cookie", "")
        if attempt == 1:
            # The challenge was good for one try: sending again without new options counts
            # nothing more.
            again = await client.post(
                PASSKEY, json={"credential": a_forged_assertion(challenge)}, headers=headers
            )
            assert again.status_code == 400
            assert len(await audited(runtime, "dashboard.sign_in_failed")) == 1

    assert await audited(runtime, "dashboard.sign_in_failed") == [staff.staff_id] * LOCK_AFTER
    assert await audited(runtime, "staff.locked") == [staff.staff_id]
    # Locked: the flow is over, and even the right password gets the one failure answer.
    assert (await client.post(OPTIONS, headers=headers)).status_code == 403
    client.cookies.clear()
    locked = await client.post(
        "/dashboard/sign-in", data={"email": staff.email, "password": PASSWORD}
    )
    assert locked.status_code == 400
    assert "Sign-in failed. Check your email, password and code." in locked.text
    assert (await client.get("/dashboard")).status_code == 303
