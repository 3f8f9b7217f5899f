"""The settings table of docs/reference/settings.md and the SECRET_KEY rules."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from pydantic import ValidationError

from gatehouse.settings import SECRET_KEY_FILE, Settings


@pytest.fixture
def clean_environ(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in list(os.environ):
        if name.startswith("GATEHOUSE_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no .env from the checkout
    return tmp_path


def test_defaults_of_contract_section_0(clean_environ: Path) -> None:
    settings = Settings()
    assert settings.database_url == "sqlite:///./gatehouse.db"
    assert settings.public_url is None
    assert settings.base_url == "http://localhost:8000"
    assert settings.redis_url is None
    assert settings.rate_limit_per_key == 60
    assert settings.rate_limit_per_ip == 240
    assert settings.trusted_proxies is None
    assert settings.trusted_proxy_set == frozenset()
    assert settings.secret_key is None
    assert settings.webhook_allow_private_urls is False
    assert settings.webhook_backoff_scale == 1.0
    assert settings.webhook_max_attempts == 12
    assert settings.verify_callback_backoff_scale == 1.0
    assert settings.sweep_interval_seconds == 300


def test_environment_and_dotenv(clean_environ: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (clean_environ / ".env").write_text("GATEHOUSE_RATE_LIMIT_PER_IP=7\n")
    monkeypatch.setenv("GATEHOUSE_PUBLIC_URL", "https://onboarding.example.com/")
    monkeypatch.setenv("GATEHOUSE_TRUSTED_PROXIES", "10.0.0.1, 10.0.0.2")
    monkeypatch.setenv("GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_URLS", "true")
    settings = Settings()
    assert settings.rate_limit_per_ip == 7
    assert settings.public_url == "https://onboarding.example.com"
    assert settings.verify_api_url == "https://onboarding.example.com/verify"
    assert settings.trusted_proxy_set == frozenset({"10.0.0.1", "10.0.0.2"})
    assert settings.webhook_allow_private_urls is True


@pytest.mark.parametrize("value", ["0", "21"])
def test_webhook_max_attempts_is_1_to_20(
    clean_environ: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("GATEHOUSE_WEBHOOK_MAX_ATTEMPTS", value)
    with pytest.raises(ValidationError):
        Settings()


def test_secret_key_is_generated_once_beside_the_sqlite_file(clean_environ: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{clean_environ}/sub/db.sqlite")
    key = settings.resolved_secret_key()
    path = clean_environ / "sub" / SECRET_KEY_FILE
    assert path.read_text() == key
    assert len(key) >= 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (
        Settings(database_url=f"sqlite:///{clean_environ}/sub/db.sqlite").resolved_secret_key()
        == key
    )
    given = "given-" + "k" * 40
    assert Settings(secret_key=given).resolved_secret_key() == given


def test_postgresql_requires_a_secret_key(clean_environ: Path) -> None:
    settings = Settings(database_url="postgresql://u@127.0.0.1:5432/db")
    with pytest.raises(RuntimeError, match="GATEHOUSE_SECRET_KEY is required"):
        settings.resolved_secret_key()
    assert not any(clean_environ.iterdir())


OIDC = {
    "GATEHOUSE_OIDC_ISSUER": "https://login.example.com/realms/staff",
    "GATEHOUSE_OIDC_CLIENT_ID": "gatehouse",
    "GATEHOUSE_OIDC_CLIENT_SECRET": "oidc-secret",
}


@pytest.mark.parametrize(
    "given",
    [
        ["GATEHOUSE_OIDC_ISSUER"],
        ["GATEHOUSE_OIDC_CLIENT_ID"],
        ["GATEHOUSE_OIDC_CLIENT_SECRET"],
        ["GATEHOUSE_OIDC_ISSUER", "GATEHOUSE_OIDC_CLIENT_ID"],
        ["GATEHOUSE_OIDC_ISSUER", "GATEHOUSE_OIDC_CLIENT_SECRET"],
        ["GATEHOUSE_OIDC_CLIENT_ID", "GATEHOUSE_OIDC_CLIENT_SECRET"],
    ],
)
def test_single_sign_on_needs_all_three_settings_or_none(
    clean_environ: Path, monkeypatch: pytest.MonkeyPatch, given: list[str]
) -> None:
    for name in given:
        monkeypatch.setenv(name, OIDC[name])
    with pytest.raises(ValidationError) as refused:
        Settings()
    [error] = refused.value.errors()
    assert error["loc"] == ()
    message = str(error["msg"])
    assert "set all three or none" in message
    missing = message.split("missing: ", 1)[1].split(")", 1)[0].split(", ")
    assert missing == [name for name in OIDC if name not in given]
    assert "oidc-secret" not in message  # the message names settings, never their values


def test_single_sign_on_with_all_three_or_none(
    clean_environ: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Settings().oidc_enabled is False
    for name in OIDC:
        monkeypatch.setenv(name, "")  # empty counts as unset
    assert Settings().oidc_enabled is False
    for name, value in OIDC.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.oidc_enabled is True
    assert settings.oidc_issuer == OIDC["GATEHOUSE_OIDC_ISSUER"]


def test_the_workers_listen_directly_or_poll_behind_a_transaction_pooler() -> None:
    """LISTEN cannot work through a transaction pooler (docs/operations.md, "Behind a
    connection pooler"): there the workers poll, unless a direct address is given."""
    pooled = "postgresql://app@pgbouncer:6432/gatehouse"
    direct = "postgresql://app@postgres:5432/gatehouse"
    secret = "s" * 40
    assert Settings(database_url=pooled, secret_key=secret).listen_url == pooled
    behind = Settings(database_url=pooled, database_pooler="transaction", secret_key=secret)
    assert behind.listen_url is None
    with_direct = Settings(
        database_url=pooled,
        database_pooler="transaction",
        database_direct_url=direct,
        secret_key=secret,
    )
    assert with_direct.listen_url == direct
    assert Settings(database_url="sqlite:///x.db", secret_key=secret).listen_url is None
