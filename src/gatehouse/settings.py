"""Settings from GATEHOUSE_* environment variables and a `.env` file
(docs/reference/settings.md).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import tempfile
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

SECRET_KEY_FILE = ".gatehouse-secret-key"  # noqa: S105 - a file name, not the key
# The shortest secret key accepted, in characters (docs/reference/settings.md §3.1).
MIN_SECRET_KEY = 32
SHORT_KEY = (
    f"must be at least {MIN_SECRET_KEY} characters; make one with "
    "python3 -c 'import secrets; print(secrets.token_urlsafe(48))'"
)
# The s3:// document store's client (boto3) is the optional extra `gatehouse-kyc[s3]`
# (docs/operations.md, "Containers").
S3_EXTRA_MISSING = (
    "the s3:// document store needs boto3, which is not installed: install gatehouse-kyc[s3] "
    "(pip install 'gatehouse-kyc[s3]'), or build the container image with --build-arg EXTRAS=s3"
)

# Connections per process (docs/operations.md, "Connections"): the default, and the least
# that works: the background workers hold up to four at once (a webhook claim, a batch of
# webhook records, a verification callback's claim or record, a sweep), plus one for requests.
DEFAULT_DB_POOL_SIZE = 16
MIN_DB_POOL_SIZE = 5


def s3_client_installed() -> bool:
    """boto3 and botocore can be imported (looked up, not imported: that is slow)."""
    return all(importlib.util.find_spec(name) is not None for name in ("boto3", "botocore"))


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
    # Older keys that still decrypt and verify (comma-separated); see docs/operations.md.
    previous_secret_keys: str | None = None
    webhook_allow_private_urls: bool = False
    webhook_backoff_scale: float = Field(default=1.0, ge=0)
    webhook_max_attempts: int = Field(default=12, ge=1, le=20)
    verify_callback_backoff_scale: float = Field(default=1.0, ge=0)
    sweep_interval_seconds: float = Field(default=300, gt=0)
    # The lowest matcher score that makes a screening hit (docs/screening.md).
    screening_threshold: float = Field(default=0.70, ge=0, le=1)
    # The largest document an applicant may upload (portal).
    upload_max_bytes: int = Field(default=10 * 1024 * 1024, ge=1)
    # The largest request bodies, by kind (docs/platform.md, "Body size"): JSON bodies,
    # page forms, and the bodies of unauthenticated sign-in and registration routes.
    json_body_max_bytes: int = Field(default=64 * 1024, ge=1024)
    form_body_max_bytes: int = Field(default=64 * 1024, ge=1024)
    sign_in_body_max_bytes: int = Field(default=16 * 1024, ge=1024)
    # Slow clients (docs/platform.md, "Slow and oversized requests"): seconds for a request's
    # headers, and for its body (plus a second per 16 KiB received).
    http_header_timeout_seconds: float = Field(default=10, gt=0, le=30)
    http_body_timeout_seconds: float = Field(default=30, gt=0, le=60)
    log_level: str = "INFO"
    # Staff sign-in (docs/staff-identity.md): a second factor for everyone, or `off` for
    # development only; sign-in attempts per source address and minute; OpenID Connect.
    staff_mfa: Literal["required", "off"] = "required"
    sign_in_limit_per_ip: int = Field(default=30, ge=1)
    oidc_issuer: str | None = None
    oidc_client_id: str | None = None
    oidc_client_secret: str | None = None
    # Where uploaded documents are kept, sealed (docs/documents.md): `database`,
    # `file:///absolute/dir` or `s3://bucket/prefix`; and ClamAV's clamd (`host:port` or a
    # unix socket path) that scans every upload when set.
    document_store: str = "database"
    clamd_address: str | None = None
    # The staff queue flags a case waiting on the applicant for this many days, and staff can
    # send a reminder (docs/workstation.md "Reminders").
    info_request_reminder_days: int = Field(default=3, ge=1, le=365)
    # The most PostgreSQL connections one process opens (docs/operations.md, "Connections").
    db_pool_size: int = DEFAULT_DB_POOL_SIZE
    # `transaction` when GATEHOUSE_DATABASE_URL is a pooler in transaction mode, such as
    # pgbouncer (docs/operations.md, "Behind a connection pooler"; storage/pooler.py).
    database_pooler: Literal["none", "transaction"] = "none"
    # A direct address of PostgreSQL (not through the pooler) for the workers' LISTEN
    # wake-ups behind a transaction pooler (docs/operations.md, "Behind a connection pooler").
    database_direct_url: str | None = None

    @field_validator("db_pool_size")
    @classmethod
    def _pool_fits_the_workers(cls, value: int) -> int:
        if value < MIN_DB_POOL_SIZE:
            raise ValueError(
                f"GATEHOUSE_DB_POOL_SIZE={value} is smaller than the {MIN_DB_POOL_SIZE} "
                "connections a process needs (its background workers hold up to "
                f"{MIN_DB_POOL_SIZE - 1} at once, and requests need one more)"
            )
        return value

    @field_validator("document_store")
    @classmethod
    def _known_store(cls, value: str) -> str:
        value = value.strip()
        bucket = value.removeprefix("s3://").split("/", 1)[0]
        if value == "database" or value.startswith("file:///"):
            return value
        if value.startswith("s3://") and bucket and "?" not in value and "#" not in value:
            if not s3_client_installed():
                raise ValueError(S3_EXTRA_MISSING)
            return value
        raise ValueError("use database, file:///absolute/dir or s3://bucket/prefix")

    @field_validator("clamd_address")
    @classmethod
    def _clamd_address(cls, value: str | None) -> str | None:
        value = (value or "").strip() or None
        if value is None or value.startswith(("/", "unix:///")) or ":" in value:
            return value
        raise ValueError("use host:port or the absolute path of clamd's unix socket")

    @field_validator("secret_key")
    @classmethod
    def _long_enough(cls, value: str | None) -> str | None:
        """A key the key ring derives every other key from: at least MIN_SECRET_KEY
        characters (docs/reference/settings.md §3.1)."""
        if value is not None and len(value.strip()) < MIN_SECRET_KEY:
            raise ValueError(SHORT_KEY)
        return value

    @field_validator("public_url")
    @classmethod
    def _strip_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else value

    @field_validator("oidc_issuer", "oidc_client_id", "oidc_client_secret")
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        return value if value and value.strip() else None

    @model_validator(mode="after")
    def _oidc_all_or_none(self) -> Settings:
        """Single sign-on needs the issuer, the client id and the secret: with only some of
        them set it would silently not be offered, so that is refused (docs/staff-identity.md)."""
        given = {
            "GATEHOUSE_OIDC_ISSUER": self.oidc_issuer,
            "GATEHOUSE_OIDC_CLIENT_ID": self.oidc_client_id,
            "GATEHOUSE_OIDC_CLIENT_SECRET": self.oidc_client_secret,
        }
        missing = [name for name, value in given.items() if value is None]
        if 0 < len(missing) < len(given):
            raise ValueError(
                "single sign-on needs GATEHOUSE_OIDC_ISSUER, GATEHOUSE_OIDC_CLIENT_ID and "
                "GATEHOUSE_OIDC_CLIENT_SECRET: set all three or none (missing: "
                + ", ".join(missing)
                + ")"
            )
        return self

    @property
    def transaction_pooler(self) -> bool:
        return self.database_pooler == "transaction" and not self.is_sqlite

    @property
    def listen_url(self) -> str | None:
        """Where the workers LISTEN for wake-ups on PostgreSQL: the direct address when one is
        set, the database URL when no transaction pooler is in between (LISTEN cannot work
        through one), else None: the workers poll."""
        if self.is_sqlite:
            return None
        if self.database_direct_url:
            return self.database_direct_url
        return None if self.transaction_pooler else self.database_url

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def base_url(self) -> str:
        """PUBLIC_URL, or the address `serve` listens on when it is unset."""
        return self.public_url or "http://localhost:8000"

    @property
    def oidc_enabled(self) -> bool:
        """Single sign-on is offered when the issuer, client id and secret are all set (the
        loader refuses some of them without the others)."""
        return bool(self.oidc_issuer and self.oidc_client_id and self.oidc_client_secret)

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
        if not path.exists():
            _create_key_file(path, secrets.token_urlsafe(48))
        key = path.read_text().strip()
        if len(key) < MIN_SECRET_KEY:
            raise RuntimeError(f"the secret key file {path} {SHORT_KEY}")
        return key

    @property
    def previous_key_list(self) -> list[str]:
        if not self.previous_secret_keys:
            return []
        return [key.strip() for key in self.previous_secret_keys.split(",") if key.strip()]

    def _secret_key_path(self) -> Path:
        db_path = sqlite_path(self.database_url)
        folder = db_path.parent if db_path else Path(".")
        return folder / SECRET_KEY_FILE


def _create_key_file(path: Path, key: str) -> None:
    """Write a new key file, mode 0600 from its creation, whole or not at all.

    Processes starting together on a new database may each generate a key: the first
    file linked into place wins, and every process then reads that one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w") as out:
            out.write(key)
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):  # another process made it first
            os.link(temporary, path)
    finally:
        os.unlink(temporary)


def sqlite_path(url: str) -> Path | None:
    """The file behind a sqlite URL, None for in-memory databases."""
    rest = url.split(":///", 1)[1] if ":///" in url else ""
    if not rest or rest.startswith(":memory:"):
        return None
    return Path(rest.split("?", 1)[0]).resolve()
