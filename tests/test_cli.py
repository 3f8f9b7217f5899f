"""The `gatehouse` command exactly as docs/reference/settings.md says, run as subprocesses
against a temporary SQLite file."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import httpx
import pytest

from gatehouse.accounts.passkeys import relying_party
from gatehouse.cli.common import announced_host, load_settings
from gatehouse.crypto import Crypto
from gatehouse.settings import SECRET_KEY_FILE
from tests.support.leaks import remember
from tests.support.live import free_port
from tests.support.processes import clean_env, run, started

pytestmark = pytest.mark.slow


@pytest.fixture
def sqlite_env(tmp_path: Path) -> dict[str, str]:
    return clean_env(database_url=f"sqlite:///{tmp_path}/data/gatehouse.db")


def test_migrate_creates_schema_and_keeps_a_secret_key_beside_the_file(
    tmp_path: Path, sqlite_env: dict[str, str]
) -> None:
    done = run(["migrate"], sqlite_env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "data" / "gatehouse.db").exists()
    key_file = tmp_path / "data" / SECRET_KEY_FILE
    key = key_file.read_text()
    assert len(key) >= 32
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    again = run(["migrate"], sqlite_env, tmp_path)
    assert again.returncode == 0
    assert key_file.read_text() == key  # kept, not regenerated


def test_staff_create_prints_one_json_object(tmp_path: Path, sqlite_env: dict[str, str]) -> None:
    done = run(
        ["staff", "create", "--email", " Root@Example.TEST", "--role", "super_admin"],
        sqlite_env,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    created = json.loads(lines[0])
    remember(created["token"])
    remember(created["inviteUrl"].rsplit("/", 1)[1])
    assert set(created) == {"staffId", "email", "role", "token", "inviteUrl", "inviteExpiresAt"}
    assert "/dashboard/invite/" in created["inviteUrl"]
    assert created["email"] == "root@example.test"
    assert created["role"] == "super_admin"
    assert created["token"].startswith("staff_" + created["staffId"].removeprefix("stf_") + "_")
    # The schema was created on the way, and the token is stored only hashed, once: as a
    # staff token (staff_members keeps no copy of its digest since migration 0011).
    import sqlite3

    key = (tmp_path / "data" / SECRET_KEY_FILE).read_text()
    with sqlite3.connect(tmp_path / "data" / "gatehouse.db") as db:
        (stored_hash,) = db.execute(
            "SELECT token_hash FROM staff_tokens WHERE staff_id = ?", (created["staffId"],)
        ).fetchone()
        member = db.execute("SELECT * FROM staff_members WHERE id = ?", (created["staffId"],))
        columns = [column[0] for column in member.description]
        values = member.fetchone()
    secret = created["token"].rsplit("_", 1)[1]
    assert Crypto(key).verify_secret(secret, stored_hash)
    assert secret not in stored_hash
    assert "token_hash" not in columns
    assert stored_hash not in values


@pytest.mark.parametrize(
    "args",
    [
        ["--email", "a@example.test", "--role", "owner"],
        ["--email", "not-an-email", "--role", "analyst"],
    ],
)
def test_staff_create_refuses_bad_input(
    tmp_path: Path, sqlite_env: dict[str, str], args: list[str]
) -> None:
    done = run(["staff", "create", *args], sqlite_env, tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr


def test_staff_create_refuses_a_duplicate_email(tmp_path: Path, sqlite_env: dict[str, str]) -> None:
    args = ["staff", "create", "--email", "dup@example.test", "--role", "analyst"]
    first = run(args, sqlite_env, tmp_path)
    assert first.returncode == 0
    remember(json.loads(first.stdout)["token"])
    second = run(args, sqlite_env, tmp_path)
    assert second.returncode == 2
    assert second.stdout == ""
    assert "exists" in second.stderr


@pytest.mark.parametrize(
    "command",
    [["serve"], ["staff", "create", "--email", "a@b.c", "--role", "analyst"], ["worker"], ["demo"]],
)
def test_postgresql_needs_a_secret_key(tmp_path: Path, command: list[str]) -> None:
    env = clean_env(database_url="postgresql://postgres@127.0.0.1:1/none")
    done = run(command, env, tmp_path, timeout=30)
    assert done.returncode == 2
    assert "GATEHOUSE_SECRET_KEY is required" in done.stderr
    assert "Traceback" not in done.stderr


def test_invalid_setting_is_a_clear_error(tmp_path: Path, sqlite_env: dict[str, str]) -> None:
    env = {**sqlite_env, "GATEHOUSE_RATE_LIMIT_PER_KEY": "lots"}
    done = run(["migrate"], env, tmp_path)
    assert done.returncode == 2
    assert "GATEHOUSE_RATE_LIMIT_PER_KEY" in done.stderr
    assert "Traceback" not in done.stderr


def test_serve_migrates_answers_healthz_and_logs_json(
    tmp_path: Path, sqlite_env: dict[str, str]
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with started(["serve", "--port", str(port), "--no-worker"], sqlite_env, tmp_path) as server:
        server.wait_healthy(base)
        assert httpx.get(base + "/openapi.json").json()["info"]["title"] == "Gatehouse"
        missing = httpx.get(base + "/v1/nothing")
        assert missing.status_code == 404
        request_id = missing.headers["service-request-id"]
    # uvicorn shuts down gracefully on SIGTERM, then re-raises the signal.
    assert server.process.returncode in (0, -15)
    assert any(f"Gatehouse is at http://localhost:{port}" in line for line in server.stderr)
    assert any("Finished server process" in line for line in server.stderr)
    entries = [json.loads(line) for line in server.stderr if line.startswith("{")]
    assert entries, server.stderr
    access = [e for e in entries if e.get("logger") == "gatehouse.access"]
    assert any(e.get("request_id") == request_id and e.get("status") == 404 for e in access)
    assert (tmp_path / "data" / SECRET_KEY_FILE).exists()


def test_serve_with_workers_and_worker_command(tmp_path: Path, sqlite_env: dict[str, str]) -> None:
    assert run(["migrate"], sqlite_env, tmp_path).returncode == 0
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with (
        started(
            ["serve", "--port", str(port), "--workers", "2", "--no-worker"], sqlite_env, tmp_path
        ) as server,
        started(["worker"], sqlite_env, tmp_path) as worker,
    ):
        server.wait_healthy(base)
        assert httpx.get(base + "/healthz").json()["database"] == "ok"
        assert worker.process.poll() is None  # the worker keeps running
    assert worker.process.returncode in (0, -15)


def test_demo_seeds_prints_and_serves(tmp_path: Path, sqlite_env: dict[str, str]) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with started(["demo", "--port", str(port)], sqlite_env, tmp_path) as demo:
        demo.wait_healthy(base)
        made = json.loads(demo.wait_for_stdout(lambda text: text.rstrip().endswith("}")))
        remember(made["apiKey"])
        remember(made["staff"]["token"])
        api = {"Authorization": f"Bearer {made['apiKey']}"}
        intakes = httpx.get(base + "/v1/intakes", headers=api)
        assert intakes.status_code == 200, intakes.text
        assert [i["labelId"] for i in intakes.json()["data"]] == [made["labelId"]]
        created = httpx.post(
            base + "/v1/applications", json={"email": "demo@example.test"}, headers=api
        )
        assert created.status_code == 201, created.text
        webhooks = httpx.get(base + "/v1/webhooks", headers=api)
        assert webhooks.status_code == 200  # all three scopes
        staff = {"Authorization": f"Bearer {made['staff']['token']}"}
        assert made["staff"]["role"] == "super_admin"
        tenant = httpx.get(base + f"/staff/v1/tenants/{made['tenant']['tenantId']}", headers=staff)
        assert tenant.status_code == 200
        # The dashboard: an invite link, and the demo says so in words.
        sign_in = made["dashboardSignIn"]
        remember(sign_in["inviteUrl"].rsplit("/", 1)[1])
        assert set(sign_in) == {"how", "inviteUrl"}
        assert "inviteUrl" in sign_in["how"]
        assert httpx.get(sign_in["inviteUrl"]).status_code == 200
        assert any("Open inviteUrl in a browser" in line for line in demo.stderr)
        # Bound to loopback, it announces localhost: a passkey cannot be bound to an IP
        # address, and the relying party is PUBLIC_URL's host.
        assert made["baseUrl"] == f"http://localhost:{port}"
        assert sign_in["inviteUrl"].startswith(f"http://localhost:{port}/dashboard/invite/")
        assert any(f"Gatehouse is at http://localhost:{port}" in line for line in demo.stderr)
    assert os.path.exists(tmp_path / "data" / "gatehouse.db")


def test_demo_with_mfa_off_prints_a_password(tmp_path: Path, sqlite_env: dict[str, str]) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**sqlite_env, "GATEHOUSE_STAFF_MFA": "off"}
    with started(["demo", "--port", str(port)], env, tmp_path) as demo:
        demo.wait_healthy(base)
        made = json.loads(demo.wait_for_stdout(lambda text: text.rstrip().endswith("}")))
        remember(made["apiKey"])
        remember(made["staff"]["token"])
        sign_in = made["dashboardSignIn"]
        remember(sign_in["password"])
        assert set(sign_in) == {"how", "email", "password"}
        assert "GATEHOUSE_STAFF_MFA=off" in sign_in["how"]
        # A browser names its page's origin on every post (docs/reference/portal.md §6).
        with httpx.Client(base_url=base, headers={"Origin": base}) as browser:
            answer = browser.post(
                "/dashboard/sign-in",
                data={"email": sign_in["email"], "password": sign_in["password"]},
            )
            assert answer.status_code == 303
            assert answer.headers["location"] == "/dashboard"
            assert browser.get("/dashboard").status_code == 200
    logged = "\n".join(demo.stderr)
    assert "GATEHOUSE_STAFF_MFA=off" in logged
    assert "development only" in logged


def test_half_configured_single_sign_on_is_a_clear_error(
    tmp_path: Path, sqlite_env: dict[str, str]
) -> None:
    env = {**sqlite_env, "GATEHOUSE_OIDC_CLIENT_SECRET": "oidc-secret-value"}
    done = run(["migrate"], env, tmp_path)
    assert done.returncode == 2
    said = " ".join(done.stderr.split())  # the console wraps long lines
    assert "set all three or none" in said
    assert "(missing: GATEHOUSE_OIDC_ISSUER, GATEHOUSE_OIDC_CLIENT_ID)" in said
    assert "GATEHOUSE_:" not in said
    assert "oidc-secret-value" not in said
    assert "Traceback" not in said


@pytest.mark.parametrize(
    ("host", "announced"),
    [
        ("127.0.0.1", "localhost"),
        ("127.0.1.1", "localhost"),
        ("::1", "localhost"),
        ("0.0.0.0", "localhost"),
        ("::", "localhost"),
        ("LOCALHOST", "localhost"),
        ("192.168.1.20", "192.168.1.20"),
        ("fd00::5", "[fd00::5]"),
        ("gatehouse.internal", "gatehouse.internal"),
    ],
)
def test_the_announced_address_is_localhost_on_loopback(host: str, announced: str) -> None:
    assert announced_host(host) == announced


def test_public_url_follows_the_bind_unless_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GATEHOUSE_PUBLIC_URL", raising=False)
    settings = load_settings("127.0.0.1", 8123)
    assert settings.base_url == "http://localhost:8123"
    assert relying_party(settings) == ("localhost", "http://localhost:8123")
    monkeypatch.setenv("GATEHOUSE_PUBLIC_URL", "https://kyc.example.test")
    assert load_settings("127.0.0.1", 8123).base_url == "https://kyc.example.test"
