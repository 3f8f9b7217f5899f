"""The rules under staff identity (docs/staff-identity.md): the password policy, TOTP steps
and replay, recovery code shapes, key rotation of TOTP secrets, the sign-in limit shared
through Redis, and the upgrade that turns existing staff tokens into personal tokens."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyotp
import pytest
from alembic import command

from gatehouse.accounts import passwords, totp
from gatehouse.accounts.identity import credential_for_update
from gatehouse.crypto import Crypto
from gatehouse.errors import GatehouseError
from gatehouse.limits.ratelimit import RateLimits
from gatehouse.runtime import Runtime
from gatehouse.storage.migrate import alembic_config, upgrade
from gatehouse.storage.sealed import rekey_all
from gatehouse.storage.tables.staff_identity import StaffCredential
from tests.conftest import make_settings
from tests.support.factories import make_staff


@pytest.mark.parametrize(
    ("password", "refused"),
    [
        ("short-pw", True),  # under 12 characters
        ("passwordpassword", True),  # guessable
        ("qwertyuiop123", True),  # keyboard walk
        ("1qaz2wsx3edc", True),  # on the list of common passwords
        ("x" * 257, True),  # over 256 characters
        ("orbit lantern pebble quarrel", False),
        ("Tr0ub4dor&3-gatehouse", False),
    ],
)
def test_the_password_policy(password: str, refused: bool) -> None:
    assert (passwords.password_problem(password) is not None) is refused


def test_the_email_is_a_hint_against_the_password() -> None:
    assert passwords.password_problem("adalovelace1815", "adalovelace@example.test") is not None
    with pytest.raises(GatehouseError) as error:
        passwords.check_password("", "a@example.test")
    assert error.value.field == "password"


async def test_argon2id_hashes_verify_and_refuse() -> None:
    stored = await passwords.hash_password("orbit lantern pebble quarrel")
    assert stored.startswith("$argon2id$")
    assert await passwords.verify_password("orbit lantern pebble quarrel", stored)
    assert not await passwords.verify_password("orbit lantern pebble quarre", stored)
    assert not await passwords.verify_password("anything", None)
    assert not await passwords.verify_password("anything", "not a hash")


def test_totp_accepts_one_step_either_side_once() -> None:
    secret = totp.new_secret()
    now = datetime(2026, 11, 23, 9, 0, 10, tzinfo=UTC)
    step = totp.step_of(now)
    code = pyotp.TOTP(secret).at(now)
    assert totp.matching_step(secret, code, now, None) == step
    assert totp.matching_step(secret, code, now, step) is None  # spent
    before = pyotp.TOTP(secret).at(now - timedelta(seconds=30))
    after = pyotp.TOTP(secret).at(now + timedelta(seconds=30))
    assert totp.matching_step(secret, before, now, None) == step - 1
    assert totp.matching_step(secret, after, now, step) == step + 1
    too_old = pyotp.TOTP(secret).at(now - timedelta(seconds=90))
    assert totp.matching_step(secret, too_old, now, None) is None
    assert totp.matching_step(secret, "12345", now, None) is None
    assert len(secret) == 32
    assert "otpauth://totp/" in totp.provisioning_uri(secret, "a@b.c")


def test_codes_lose_their_spaces() -> None:
    assert totp.compact_code(" 123 456 ") == "123456"
    assert totp.compact_code("123\u00a0456") == "123456"  # a no-break space, pasted
    assert totp.looks_like_totp(totp.compact_code("12 34 56"))
    assert not totp.looks_like_totp(totp.compact_code("123 45"))


def test_recovery_codes_shapes() -> None:
    codes = totp.new_recovery_codes()
    assert len(codes) == 10
    assert len(set(codes)) == 10
    code = codes[0]
    plain = code.replace("-", "")
    assert totp.normalize_recovery_code(code.upper()) == plain
    assert totp.normalize_recovery_code(f" {plain[:5]} {plain[5:]} ") == plain
    assert totp.normalize_recovery_code("short") is None


async def test_keys_rotate_reseals_totp_secrets(runtime: Runtime) -> None:
    person = await make_staff(runtime, "analyst")
    async with runtime.db.write() as session:
        credential = await credential_for_update(session, person.staff_id)
        credential.totp_secret_encrypted = runtime.crypto.encrypt_text("JBSWY3DPEHPK3PXP")
    old_key = runtime.settings.resolved_secret_key()
    ring = Crypto("a-new-current-key-for-rotation-0123456789abcdef", [old_key])
    counts = {c.column: c for c in await rekey_all(runtime.db, ring)}
    assert counts["staff_credentials.totp_secret_encrypted"].rekeyed == 1
    assert "staff_sign_in_flows.payload_encrypted" in counts
    async with runtime.db.read() as session:
        stored = await session.get(StaffCredential, person.staff_id)
    assert stored is not None
    assert stored.totp_secret_encrypted is not None
    assert not ring.needs_rekey(stored.totp_secret_encrypted)
    assert ring.decrypt_text(stored.totp_secret_encrypted) == "JBSWY3DPEHPK3PXP"


async def test_the_sign_in_limit_is_shared_through_redis(database_url: str, redis_url: str) -> None:
    settings = make_settings(database_url, redis_url=redis_url, sign_in_limit_per_ip=2)
    first, second = RateLimits(settings), RateLimits(settings)
    try:
        await first.reset()
        address = "198.51.100.77"
        assert (await first.hit_sign_in(address)).allowed  # type: ignore[union-attr]
        assert (await second.hit_sign_in(address)).allowed  # type: ignore[union-attr]
        third = await first.hit_sign_in(address)
        assert third is not None
        assert not third.allowed
        assert third.reset_seconds >= 1
    finally:
        await first.reset()
        await first.close()
        await second.close()


def test_upgrade_makes_existing_staff_tokens_personal_and_ends_sessions(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/old.db"
    command.upgrade(alembic_config(url), "0004")
    with sqlite3.connect(tmp_path / "old.db") as db:
        db.execute(
            "INSERT INTO staff_members (id, email, role, token_hash, status, created_at) "
            "VALUES ('stf_abcdefghij0123456789', 'old@example.test', 'admin', 'kabc$digest', "
            "'active', '2026-01-01 00:00:00')"
        )
        db.execute(
            "INSERT INTO dashboard_sessions (id, staff_id, token_hash, csrf_token, created_at, "
            "expires_at) VALUES ('dsh_1', 'stf_abcdefghij0123456789', 'h', 'c', "
            "'2026-01-01 00:00:00', '2099-01-01 00:00:00')"
        )
    upgrade(url)
    with sqlite3.connect(tmp_path / "old.db") as db:
        token = db.execute("SELECT id, staff_id, name, token_hash FROM staff_tokens").fetchall()
        ended = db.execute("SELECT ended_at FROM dashboard_sessions").fetchone()
    assert token == [
        ("stk_abcdefghij0123456789", "stf_abcdefghij0123456789", "First token", "kabc$digest")
    ]
    assert ended[0] is not None
