"""Staff sign-in through the pages (docs/staff-identity.md): invites, TOTP enrolment,
password and second step, recovery codes, the one failure answer, lockout, the per-address
limit, session timeouts, and staff tokens never opening the dashboard."""

from __future__ import annotations

import base64
import json as jsonlib
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import httpx
import pyotp
from sqlalchemy import func, select

from gatehouse.accounts.passkeys import EXPIRED, NOT_CONFIRMED, relying_party, wrong_address
from gatehouse.accounts.sign_in import LOCK_AFTER
from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.storage.tables.dashboard import DashboardSession
from gatehouse.storage.tables.staff_identity import (
    StaffCredential,
    StaffInvite,
    StaffRecoveryCode,
    StaffSignInFailure,
)
from tests.conftest import make_settings
from tests.pages.helpers import (
    PASSWORD,
    client_with,
    csrf_of,
    dashboard_sign_in,
    next_code,
    sign_in_with_password,
)
from tests.support.browser import SAME_ORIGIN
from tests.support.factories import StaffFixture, make_staff
from tests.support.leaks import remember

FAILED_RE = re.compile(r"Sign-in failed\. Check your email, password and code\.")


async def actions(runtime: Runtime, like: str) -> list[tuple[str, str, str]]:
    async with runtime.db.read() as session:
        rows = await session.execute(
            select(AuditEntry.action, AuditEntry.actor, AuditEntry.target)
            .where(AuditEntry.action.like(like))
            .order_by(AuditEntry.at, AuditEntry.id)
        )
    return [tuple(row) for row in rows]  # type: ignore[misc]


def frozen(runtime: Runtime, start: datetime) -> Callable[[timedelta], None]:
    """Stop the runtime's clock at `start`; the returned function moves it on."""
    moment = [start]
    runtime.clock = lambda: moment[0]

    def advance(by: timedelta) -> None:
        moment[0] = moment[0] + by

    return advance


def code_at(staff: StaffFixture, moment: datetime) -> str:
    assert staff.totp_secret is not None
    return pyotp.TOTP(staff.totp_secret).at(moment)


async def test_invite_sets_a_password_enrols_totp_and_opens_the_first_session(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    path = urlsplit(staff.invite_url).path
    token = path.rsplit("/", 1)[1]
    # Opening the link twice consumes nothing (link scanners are safe).
    for _ in range(2):
        page = await client.get(path)
        assert page.status_code == 200
        assert staff.email in page.text
        assert page.headers["cache-control"] == "no-store"
    # A short, a common and a guessable password are refused beside the field.
    for weak in ("short-one", "passwordpassword", "qwertyuiop123"):
        refused = await client.post(path, data={"password": weak, "password_confirm": weak})
        assert refused.status_code == 400
        assert 'id="f-password-error"' in refused.text
    differ = await client.post(
        path, data={"password": PASSWORD, "password_confirm": PASSWORD + "x"}
    )
    assert differ.status_code == 400
    assert 'id="f-password_confirm-error"' in differ.text
    assert (await client.get(path)).status_code == 200  # still unused

    used = await client.post(path, data={"password": PASSWORD, "password_confirm": PASSWORD})
    assert used.status_code == 303
    assert used.headers["location"] == "/dashboard/enrol"
    assert "gatehouse_sign_in=" in used.headers["set-cookie"]
    assert (await client.get("/dashboard")).status_code == 303  # no session before enrolment
    enrol = await client.get("/dashboard/enrol")
    assert "<svg" in enrol.text
    assert 'class="qr-code"' in enrol.text
    secret = re.search(r'id="totp-secret">([A-Z2-7 ]+)<', enrol.text)
    assert secret is not None
    staff.totp_secret = secret.group(1).replace(" ", "")
    staff.password = PASSWORD
    remember(staff.totp_secret)
    wrong = await client.post(
        "/dashboard/enrol", data={"csrf_token": csrf_of(enrol.text), "code": "000000"}
    )
    assert wrong.status_code == 400
    assert 'id="f-code-error"' in wrong.text
    done = await client.post(
        "/dashboard/enrol", data={"csrf_token": csrf_of(enrol.text), "code": next_code(staff)}
    )
    assert done.status_code == 200
    codes = re.findall(r"<li>([a-z0-9]{5}-[a-z0-9]{5})</li>", done.text)
    assert len(codes) == 10
    for code in codes:
        remember(code)
    assert "gatehouse_dashboard=" in done.headers["set-cookie"]
    assert (await client.get("/dashboard")).status_code == 200
    # The invite worked once.
    gone = await client.get(path)
    assert gone.status_code == 410
    assert "no longer valid" in gone.text

    async with runtime.db.read() as session:
        credential = await session.get(StaffCredential, staff.staff_id)
        invite = (await session.scalars(select(StaffInvite))).one()
        hashes = (await session.scalars(select(StaffRecoveryCode.code_hash))).all()
    assert credential is not None
    assert credential.password_hash is not None
    assert credential.password_hash.startswith("$argon2id$")
    assert credential.totp_secret_encrypted is not None
    assert credential.totp_secret_encrypted.startswith("g1.")
    assert staff.totp_secret not in credential.totp_secret_encrypted
    assert runtime.crypto.decrypt_text(credential.totp_secret_encrypted) == staff.totp_secret
    assert invite.used_at is not None
    assert token not in invite.token_hash
    assert len(hashes) == 10
    assert not any(c.replace("-", "") in h for c in codes for h in hashes)
    assert [a for a, _, _ in await actions(runtime, "staff.%")][-2:] == [
        "staff.invite_used",
        "staff.factor_enrolled.totp",
    ]
    signed = await actions(runtime, "dashboard.sign_in%")
    assert [(a, actor) for a, actor, _ in signed] == [
        ("dashboard.sign_in.totp", f"staff:{staff.staff_id}")
    ]


async def test_sign_in_with_a_password_and_a_code_then_sign_out(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    first_cookie = client.cookies.get("gatehouse_dashboard", path="/dashboard")
    client.cookies.clear()
    assert (await client.get("/dashboard")).status_code == 303
    answer = await sign_in_with_password(client, staff, "/dashboard/tenants")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/dashboard/tenants"
    cookie = answer.headers["set-cookie"]
    assert "gatehouse_dashboard=" in cookie
    assert "HttpOnly" in cookie
    assert "samesite=strict" in cookie.lower()
    assert "Secure" not in cookie
    new_cookie = answer.cookies["gatehouse_dashboard"]
    assert new_cookie != first_cookie  # a new session id and cookie value on every sign-in
    page = await client.get("/dashboard")
    assert page.status_code == 200
    assert staff.email in page.text

    refused = await client.post("/dashboard/sign-out", data={"csrf_token": "wrong"})
    assert refused.status_code == 403
    done = await client.post("/dashboard/sign-out", data={"csrf_token": csrf_of(page.text)})
    assert done.status_code == 303
    assert (await client.get("/dashboard")).status_code == 303
    async with runtime.db.read() as session:
        ended = await session.scalar(
            select(func.count())
            .select_from(DashboardSession)
            .where(DashboardSession.ended_at.is_not(None))
        )
    assert ended == 1  # the second session; the first one is still open
    assert [a for a, _, _ in await actions(runtime, "dashboard.%")] == [
        "dashboard.sign_in.totp",
        "dashboard.sign_in.totp",
        "dashboard.sign_out",
    ]


async def test_a_recovery_code_and_a_totp_code_each_work_once(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    spent_code = code_at(staff, datetime.now(UTC))
    code = staff.recovery_codes[0]
    for attempt, expected in ((code.upper(), 303), (code, 400)):
        client.cookies.clear()
        await client.post(
            "/dashboard/sign-in", data={"email": staff.email, "password": staff.password}
        )
        form = await client.get("/dashboard/sign-in/verify")
        answer = await client.post(
            "/dashboard/sign-in/verify", data={"csrf_token": csrf_of(form.text), "code": attempt}
        )
        assert answer.status_code == expected, attempt
    # The code of the enrolment's time step was spent there.
    form = await client.get("/dashboard/sign-in/verify")
    replay = await client.post(
        "/dashboard/sign-in/verify", data={"csrf_token": csrf_of(form.text), "code": spent_code}
    )
    assert replay.status_code == 400
    assert FAILED_RE.search(replay.text)
    assert [a for a, _, _ in await actions(runtime, "dashboard.sign_in%")] == [
        "dashboard.sign_in.totp",
        "dashboard.sign_in.recovery_code",
        "dashboard.sign_in_failed",
        "dashboard.sign_in_failed",
    ]


async def test_every_failure_gets_the_same_answer(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    alice, bob = await make_staff(runtime, "analyst"), await make_staff(runtime, "analyst")
    for person in (alice, bob):
        client.cookies.clear()
        await dashboard_sign_in(client, person)
    client.cookies.clear()
    admin = await make_staff(runtime, "super_admin")
    assert (
        await client.post(f"/staff/v1/staff/{bob.staff_id}/deactivate", headers=admin.headers)
    ).status_code == 200

    async def first_step(email: str, password: str) -> httpx.Response:
        client.cookies.clear()
        return await client.post("/dashboard/sign-in", data={"email": email, "password": password})

    answers = {
        "unknown email": await first_step("nobody@example.test", PASSWORD),
        "wrong password": await first_step(alice.email, PASSWORD + "!"),
        "deactivated": await first_step(bob.email, PASSWORD),
        "malformed email": await first_step("no-at-sign", PASSWORD),
    }
    bodies = set()
    for name, answer in answers.items():
        assert answer.status_code == 400, name
        assert FAILED_RE.search(answer.text), name
        assert "set-cookie" not in answer.headers, name
        bodies.add(
            answer.text.replace(alice.email, "")
            .replace(bob.email, "")
            .replace("nobody@example.test", "")
            .replace("no-at-sign", "")
        )
    assert len(bodies) == 1
    # A wrong code on the second step: the same message.
    client.cookies.clear()
    await client.post("/dashboard/sign-in", data={"email": alice.email, "password": PASSWORD})
    form = await client.get("/dashboard/sign-in/verify")
    wrong = await client.post(
        "/dashboard/sign-in/verify", data={"csrf_token": csrf_of(form.text), "code": "123456"}
    )
    assert wrong.status_code == 400
    assert FAILED_RE.search(wrong.text)
    audited = await actions(runtime, "dashboard.sign_in_failed")
    assert [(actor, target) for _, actor, target in audited] == [
        ("anonymous", "unknown"),
        ("anonymous", alice.staff_id),
        ("anonymous", bob.staff_id),
        ("anonymous", "unknown"),
        ("anonymous", alice.staff_id),
    ]


async def test_five_failures_in_fifteen_minutes_lock_the_account_for_fifteen_minutes(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    advance = frozen(runtime, datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=5))

    async def attempt(password: str) -> httpx.Response:
        client.cookies.clear()
        return await client.post(
            "/dashboard/sign-in", data={"email": staff.email, "password": password}
        )

    # Four failures, then 16 quiet minutes: they fall out of the window.
    for _ in range(LOCK_AFTER - 1):
        assert (await attempt("wrong password here")).status_code == 400
    advance(timedelta(minutes=16))
    assert (await attempt("wrong password here")).status_code == 400
    assert (await attempt(PASSWORD)).status_code == 303  # not locked: only 1 in the window
    # Five within the window lock the account; the right password gets the same answer.
    for _ in range(LOCK_AFTER - 1):
        await attempt("wrong password here")
    locked = await attempt(PASSWORD)
    assert locked.status_code == 400
    assert FAILED_RE.search(locked.text)
    advance(timedelta(minutes=14))
    assert (await attempt(PASSWORD)).status_code == 400
    advance(timedelta(minutes=1, seconds=1))
    answer = await attempt(PASSWORD)
    assert answer.status_code == 303
    assert answer.headers["location"].endswith("/verify")
    form = await client.get("/dashboard/sign-in/verify")
    signed = await client.post(
        "/dashboard/sign-in/verify",
        data={"csrf_token": csrf_of(form.text), "code": code_at(staff, runtime.now())},
    )
    assert signed.status_code == 303
    async with runtime.db.read() as session:
        left = await session.scalar(select(func.count()).select_from(StaffSignInFailure))
    assert left == 0  # a sign-in forgets the failures
    assert len(await actions(runtime, "staff.locked")) == 1


async def test_wrong_codes_count_towards_the_lock_and_end_the_second_step(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    client.cookies.clear()
    await client.post("/dashboard/sign-in", data={"email": staff.email, "password": PASSWORD})
    form = await client.get("/dashboard/sign-in/verify")
    csrf = csrf_of(form.text)
    for _ in range(LOCK_AFTER - 1):
        wrong = await client.post(
            "/dashboard/sign-in/verify", data={"csrf_token": csrf, "code": "999999"}
        )
        assert wrong.status_code == 400
        assert 'id="f-code-error"' in wrong.text
    last = await client.post(
        "/dashboard/sign-in/verify", data={"csrf_token": csrf, "code": "999999"}
    )
    # Locked: back to the first step, with the same message.
    assert last.status_code == 400
    assert FAILED_RE.search(last.text)
    assert 'name="password"' in last.text
    assert (await client.get("/dashboard/sign-in/verify")).headers["location"] == (
        "/dashboard/sign-in"
    )


async def test_sign_in_is_limited_per_source_address(database_url: str) -> None:
    async with client_with(database_url, sign_in_limit_per_ip=3) as (client, _runtime):
        for _ in range(3):
            answer = await client.post(
                "/dashboard/sign-in", data={"email": "a@example.test", "password": "x" * 12}
            )
            assert answer.status_code == 400
        limited = await client.post(
            "/dashboard/sign-in", data={"email": "a@example.test", "password": "x" * 12}
        )
        assert limited.status_code == 429
        assert int(limited.headers["retry-after"]) >= 1
        assert "Too many sign-in attempts" in limited.text


async def test_with_mfa_off_a_password_is_enough(database_url: str) -> None:
    async with client_with(database_url, staff_mfa="off") as (client, runtime):
        person = await make_staff(runtime, "analyst")
        path = urlsplit(person.invite_url).path
        used = await client.post(path, data={"password": PASSWORD, "password_confirm": PASSWORD})
        assert used.status_code == 303
        assert used.headers["location"] == "/dashboard"
        assert (await client.get("/dashboard")).status_code == 200
        client.cookies.clear()
        answer = await client.post(
            "/dashboard/sign-in", data={"email": person.email, "password": PASSWORD}
        )
        assert answer.status_code == 303
        assert answer.headers["location"] == "/dashboard"
        assert [a for a, _, _ in await actions(runtime, "dashboard.sign_in%")] == [
            "dashboard.sign_in.password",
            "dashboard.sign_in.password",
        ]


async def test_mfa_required_makes_a_person_without_a_factor_enrol_first(
    database_url: str,
) -> None:
    async with client_with(database_url, staff_mfa="off") as (client, runtime):
        person = await make_staff(runtime, "analyst")
        path = urlsplit(person.invite_url).path
        await client.post(path, data={"password": PASSWORD, "password_confirm": PASSWORD})
        # The same database, now served with a second factor required.
        runtime.settings = make_settings(database_url)
        required = httpx.ASGITransport(app=create_app(runtime.settings, runtime))
        async with httpx.AsyncClient(
            transport=required, base_url="http://testserver", headers=SAME_ORIGIN
        ) as other:
            answer = await other.post(
                "/dashboard/sign-in", data={"email": person.email, "password": PASSWORD}
            )
            assert answer.status_code == 303
            assert answer.headers["location"] == "/dashboard/enrol"
            assert (await other.get("/dashboard")).status_code == 303
            assert (await other.get("/dashboard/enrol")).status_code == 200


async def test_sessions_end_after_30_idle_minutes_and_after_12_hours(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    advance = frozen(runtime, datetime.now(UTC))
    # A request every 25 minutes keeps the session alive, but not past 12 hours.
    elapsed = timedelta(0)
    while elapsed + timedelta(minutes=25) < timedelta(hours=12):
        advance(timedelta(minutes=25))
        elapsed += timedelta(minutes=25)
        assert (await client.get("/dashboard")).status_code == 200, elapsed
    advance(timedelta(hours=12) - elapsed + timedelta(seconds=1))
    assert (await client.get("/dashboard")).status_code == 303
    # Idle: a new session, 30 minutes without a request.
    runtime.clock = lambda: datetime.now(UTC)
    client.cookies.clear()
    await sign_in_with_password(client, staff)
    advance = frozen(runtime, datetime.now(UTC))
    advance(timedelta(minutes=29))
    assert (await client.get("/dashboard")).status_code == 200
    advance(timedelta(minutes=29))
    assert (await client.get("/dashboard")).status_code == 200  # 29 minutes since the last
    advance(timedelta(minutes=30, seconds=1))
    assert (await client.get("/dashboard")).status_code == 303


async def test_a_staff_token_never_opens_a_dashboard_session(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    for data in (
        {"token": staff.token},
        {"email": staff.email, "password": staff.token},
        {"email": staff.token, "password": staff.token},
    ):
        answer = await client.post("/dashboard/sign-in", data=data)
        assert answer.status_code == 400
        assert "set-cookie" not in answer.headers
    bearer = await client.get("/dashboard", headers=staff.headers)
    assert bearer.status_code == 303
    assert "/dashboard/sign-in" in bearer.headers["location"]
    client.cookies.set("gatehouse_dashboard", staff.token, path="/dashboard")
    assert (await client.get("/dashboard")).status_code == 303
    async with runtime.db.read() as session:
        assert (await session.execute(select(DashboardSession))).first() is None


async def test_flow_forms_need_their_csrf_token_and_our_origin(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    client.cookies.clear()
    await client.post("/dashboard/sign-in", data={"email": staff.email, "password": PASSWORD})
    form = await client.get("/dashboard/sign-in/verify")
    no_token = await client.post("/dashboard/sign-in/verify", data={"code": next_code(staff)})
    assert no_token.status_code == 403
    cross = await client.post(
        "/dashboard/sign-in/verify",
        data={"csrf_token": csrf_of(form.text), "code": next_code(staff)},
        headers={"Origin": "https://evil.example"},
    )
    assert cross.status_code == 403
    cross_first = await client.post(
        "/dashboard/sign-in",
        data={"email": staff.email, "password": PASSWORD},
        headers={"Origin": "https://evil.example"},
    )
    assert cross_first.status_code == 403
    assert "set-cookie" not in cross_first.headers
    assert (await client.get("/dashboard")).status_code == 303


async def test_next_only_follows_dashboard_paths(
    client: httpx.AsyncClient, settings: Settings, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    for target, expected in (
        ("https://evil.example/", "/dashboard"),
        ("//evil.example", "/dashboard"),
        ("/portal", "/dashboard"),
        ("/dashboard/tenants?x=1", "/dashboard/tenants?x=1"),
    ):
        client.cookies.clear()
        answer = await sign_in_with_password(client, staff, target)
        assert answer.headers["location"] == expected, target


async def test_a_refused_new_passkey_says_why(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    """The server's refusals of a new passkey (docs/staff-identity.md "Passkeys"): a stale or
    forged ticket, a credential made at another address, one the device did not confirm."""
    csrf = await dashboard_sign_in(client, staff)
    headers = {"X-CSRF-Token": csrf}
    options = await client.post("/dashboard/account/passkeys/options", headers=headers)
    assert options.status_code == 200, options.text
    ticket = options.json()["ticket"]
    _, origin = relying_party(runtime.settings)

    def credential(at: str) -> dict[str, object]:
        data = {"type": "webauthn.create", "challenge": "AAAA", "origin": at}
        encoded = base64.urlsafe_b64encode(jsonlib.dumps(data).encode()).decode().rstrip("=")
        return {
            "id": "AAAA",
            "rawId": "AAAA",
            "type": "public-key",
            "response": {"clientDataJSON": encoded, "attestationObject": "AAAA"},
        }

    async def enrol(ticket: str, made: dict[str, object]) -> str:
        answer = await client.post(
            "/dashboard/account/passkeys",
            json={"name": "Laptop", "ticket": ticket, "credential": made},
            headers=headers,
        )
        assert answer.status_code == 400, answer.text
        return str(answer.json()["message"])

    assert await enrol("forged.ticket", credential(origin)) == EXPIRED
    elsewhere = "http://127.0.0.1:8000"
    assert await enrol(ticket, credential(elsewhere)) == wrong_address(origin, elsewhere)
    assert "Passkeys work only at" in wrong_address(origin, elsewhere)
    assert await enrol(ticket, credential(origin)) == NOT_CONFIRMED
    assert await enrol(ticket, {"response": "nothing"}) == NOT_CONFIRMED
