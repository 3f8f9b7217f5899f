"""Settings from GATEHOUSE_* environment variables and a `.env` file (CONTRACT §0)."""

from __future__ import annotations

import secrets
from functools import cached_property
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

SECRET_KEY_FILE = ".gatehouse-secret-key"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="GATEHOUSE_", env_file=".env", extra="ignore", frozen=False
    )

    database_url: str = "sqlite:///./gatehouse.db"
    public_url: str | None = None
    redis_url: str | None = None
    rate_limit_per_key: int = Field(default=60, ge=1)
    rate_limit_per_ip: int = Field(default=240, ge=1)
    trusted_proxies: str | None = None
    secret_key: str | None = None
    webhook_allow_private_urls: bool = False
    webhook_backoff_scale: float = Field(default=1.0, ge=0)
    webhook_max_attempts: int = Field(default=12, ge=1, le=20)
    verify_callback_backoff_scale: float = Field(default=1.0, ge=0)
    sweep_interval_seconds: float = Field(default=300, gt=0)
    # The largest document an applicant may upload (portal).
    upload_max_bytes: int = Field(default=10 * 1024 * 1024, ge=1)
    log_level: str = "INFO"

    @field_validator("public_url")
    @classmethod
    def _strip_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else value

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def base_url(self) -> str:
        """PUBLIC_URL, or the address `serve` listens on when it is unset."""
        return self.public_url or "http://127.0.0.1:8000"

    @property
    def verify_api_url(self) -> str:
        return self.base_url + "/verify"

    @cached_property
    def trusted_proxy_set(self) -> frozenset[str]:
        if not self.trusted_proxies:
            return frozenset()
        return frozenset(p.strip() for p in self.trusted_proxies.split(",") if p.strip())

    def resolved_secret_key(self) -> str:
        """SECRET_KEY, or one generated once and kept beside the SQLite file."""
        if self.secret_key:
            return self.secret_key
        if not self.is_sqlite:
            raise RuntimeError("GATEHOUSE_SECRET_KEY is required with PostgreSQL")
        path = self._secret_key_path()
        if path.exists():
            return path.read_text().strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(48)
        path.write_text(key)
        path.chmod(0o600)
        return key

    def _secret_key_path(self) -> Path:
        db_path = sqlite_path(self.database_url)
        folder = db_path.parent if db_path else Path(".")
        return folder / SECRET_KEY_FILE


def sqlite_path(url: str) -> Path | None:
    """The file behind a sqlite URL, None for in-memory databases."""
    rest = url.split(":///", 1)[1] if ":///" in url else ""
    if not rest or rest.startswith(":memory:"):
        return None
    return Path(rest.split("?", 1)[0]).resolve()
