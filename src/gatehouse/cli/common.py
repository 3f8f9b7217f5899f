"""What every `gatehouse` sub-command shares: the one-line error, the settings, the key and
schema checks (docs/reference/settings.md)."""

from __future__ import annotations

import json
import logging
import sys
from typing import NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from gatehouse import tracing
from gatehouse.settings import Settings
from gatehouse.storage.migrate import upgrade

console = Console(stderr=True)
log = logging.getLogger("gatehouse.cli")


def fail(message: str) -> NoReturn:
    """A clear one-line error on stderr and exit status 2 (no traceback)."""
    # escape(): a message is text, never markup (`gatehouse-kyc[s3]` must not vanish).
    console.print(
        f"[red]error:[/red] {escape(message)}", markup=True, highlight=False, soft_wrap=True
    )  # soft_wrap: one line, however narrow the terminal
    raise typer.Exit(2)


def load_settings(host: str | None = None, port: int | None = None) -> Settings:
    try:
        settings = Settings()
    except ValidationError as exc:
        # A rule over several settings (no `loc`) names them in its message.
        problems = "; ".join(
            f"GATEHOUSE_{'_'.join(str(p) for p in e['loc']).upper()}: {e['msg']}"
            if e["loc"]
            else str(e["msg"])
            for e in exc.errors()
        )
        fail(f"invalid settings: {problems}")
    try:
        tracing.check_environment()  # OTEL_* (docs/operations.md, "Traces")
    except tracing.TracingSettingsError as exc:
        fail(f"invalid settings: {exc}")
    if settings.public_url is None and host is not None and port is not None:
        settings.public_url = f"http://{announced_host(host)}:{port}"
    return settings


# Addresses that reach this machine only, and the wildcard binds (which include them).
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost", "0.0.0.0", "::"})  # noqa: S104


def announced_host(host: str) -> str:
    """The host name PUBLIC_URL gets when it is unset: `localhost` for a loopback or wildcard
    bind, because a passkey is bound to a domain and never to an IP address (so the WebAuthn
    relying party, PUBLIC_URL's host, is `localhost` too; docs/staff-identity.md "Passkeys");
    any other address as given (an IPv6 one in brackets)."""
    if host.lower() in LOOPBACK_HOSTS or host.startswith("127."):
        return "localhost"
    return f"[{host}]" if ":" in host else host


def announce(settings: Settings) -> None:
    """Say where to open Gatehouse, on standard error (the demo's JSON keeps standard out)."""
    console.print(
        f"Gatehouse is at {settings.base_url} (dashboard: {settings.base_url}/dashboard). "
        "Open this address: passkeys work only at it.",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def require_secret_key(settings: Settings) -> None:
    """SECRET_KEY: generated beside the SQLite file, required for PostgreSQL
    (docs/reference/settings.md §3.1)."""
    try:
        settings.resolved_secret_key()
    except (RuntimeError, OSError) as exc:
        fail(str(exc))


def migrate_schema(settings: Settings) -> None:
    try:
        upgrade(settings.database_url)
    except Exception as exc:
        log.exception("migration failed")
        fail(f"could not migrate the database: {type(exc).__name__}")


def prepared_settings() -> Settings:
    """For a one-off command over the database: the settings checked, the key ring usable, the
    schema migrated; only warnings logged, so standard output carries the command's answer."""
    from gatehouse import logs

    settings = load_settings()
    logs.configure("WARNING")
    require_secret_key(settings)
    migrate_schema(settings)
    return settings


def print_json_line(value: object) -> None:
    """One JSON object on one line of standard output, flushed (a pipe reads it at once)."""
    sys.stdout.write(json.dumps(value, separators=(",", ":")) + "\n")
    sys.stdout.flush()
