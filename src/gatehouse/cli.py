"""The `gatehouse` command: serve, worker, migrate, staff create, demo (CONTRACT §0)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from typing import Annotated, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console

from gatehouse import logs
from gatehouse.settings import Settings
from gatehouse.storage.migrate import upgrade

app = typer.Typer(help="Gatehouse onboarding platform.", no_args_is_help=True, add_completion=False)
staff_app = typer.Typer(help="Staff members.", no_args_is_help=True)
app.add_typer(staff_app, name="staff")
console = Console(stderr=True)
log = logging.getLogger("gatehouse.cli")


def _fail(message: str) -> NoReturn:
    """A clear one-line error on stderr and exit status 2 (no traceback)."""
    console.print(f"[red]error:[/red] {message}", markup=True, highlight=False)
    raise typer.Exit(2)


def _settings(host: str | None = None, port: int | None = None) -> Settings:
    try:
        settings = Settings()
    except ValidationError as exc:
        problems = "; ".join(
            f"GATEHOUSE_{'_'.join(str(p) for p in e['loc']).upper()}: {e['msg']}"
            for e in exc.errors()
        )
        _fail(f"invalid settings: {problems}")
    if settings.public_url is None and host is not None and port is not None:
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        settings.public_url = f"http://{shown}:{port}"
    return settings


def _require_secret_key(settings: Settings) -> None:
    """SECRET_KEY: generated beside the SQLite file, required for PostgreSQL (CONTRACT §0)."""
    try:
        settings.resolved_secret_key()
    except (RuntimeError, OSError) as exc:
        _fail(str(exc))


def _migrate(settings: Settings) -> None:
    try:
        upgrade(settings.database_url)
    except Exception as exc:
        log.exception("migration failed")
        _fail(f"could not migrate the database: {type(exc).__name__}")


def _warn_private(settings: Settings) -> None:
    if settings.webhook_allow_private_urls:
        log.warning(
            "GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_URLS is set: webhook and callback receivers may be "
            "http, private or loopback addresses. Use this for development and tests only."
        )


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(help="API processes.")] = 1,
    no_worker: Annotated[
        bool, typer.Option("--no-worker", help="Run no background workers.")
    ] = False,
) -> None:
    """Serve every surface, and the background workers unless --no-worker."""
    settings = _settings(host, port)
    logs.configure(settings.log_level)
    _warn_private(settings)
    _require_secret_key(settings)
    _migrate(settings)
    os.environ["GATEHOUSE_PUBLIC_URL"] = settings.base_url
    if no_worker:
        os.environ["GATEHOUSE_SERVE_NO_WORKER"] = "1"
    else:
        os.environ.pop("GATEHOUSE_SERVE_NO_WORKER", None)
    import uvicorn

    log.info("serving", extra={"host": host, "port": port, "workers": workers})
    uvicorn.run(
        "gatehouse.server:asgi_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_config=None,
        access_log=False,
        proxy_headers=False,
        server_header=False,
        # A busy host can take more than uvicorn's default 5 s to answer a worker ping.
        timeout_worker_healthcheck=60,
    )


@app.command()
def worker() -> None:
    """Run only the background workers (beside `serve --no-worker`)."""
    from gatehouse.runtime import Runtime
    from gatehouse.workers import run_workers

    settings = _settings()
    logs.configure(settings.log_level)
    _warn_private(settings)
    _require_secret_key(settings)
    _migrate(settings)

    async def main() -> None:
        runtime = Runtime.build(settings)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await run_workers(runtime, stop)
        finally:
            await runtime.close()

    asyncio.run(main())


@app.command()
def migrate() -> None:
    """Apply migrations and exit."""
    settings = _settings()
    logs.configure(settings.log_level)
    if settings.is_sqlite:
        # Keep the generated key beside the file from the very first command.
        _require_secret_key(settings)
    _migrate(settings)
    console.print("[green]schema is up to date[/green]")


@staff_app.command("create")
def staff_create(
    email: Annotated[str, typer.Option(help="Staff email.")],
    role: Annotated[str, typer.Option(help="analyst, mlro, admin or super_admin.")],
) -> None:
    """Create a staff member and print {staffId, email, role, token} as JSON."""
    from gatehouse.http.errors import ApiError
    from gatehouse.runtime import Runtime
    from gatehouse.staff.accounts import create_staff_member

    settings = _settings()
    logs.configure("WARNING")
    _require_secret_key(settings)
    _migrate(settings)

    async def main() -> dict[str, str]:
        runtime = Runtime.build(settings)
        try:
            return await create_staff_member(runtime, email, role)
        finally:
            await runtime.close()

    try:
        created = asyncio.run(main())
    except ApiError as exc:
        _fail(exc.message)
    sys.stdout.write(json.dumps(created) + "\n")


@app.command()
def demo(
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8000,
) -> None:
    """Seed a demo tenant, intake, API key and super_admin, print them, and serve."""
    from gatehouse.demo import seed_demo

    settings = _settings(host, port)
    logs.configure("WARNING")
    _require_secret_key(settings)
    _migrate(settings)
    made = asyncio.run(seed_demo(settings))
    sys.stdout.write(json.dumps(made, indent=2) + "\n")
    sys.stdout.flush()
    serve(host=host, port=port, workers=1, no_worker=False)


def main() -> None:
    app()
