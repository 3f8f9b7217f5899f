"""The `gatehouse` command: serve, worker, migrate, staff create, keys, repair, demo.

A group of sub-commands of one area lives in a module of its own beside this one, built on
`cli/common.py`, and is added here with one `add_typer` line. Documented in
docs/reference/settings.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import tempfile
from typing import Annotated

import typer

from gatehouse import logs
from gatehouse.cli import screening
from gatehouse.cli.audit import audit_app, retention_app
from gatehouse.cli.common import (
    announce,
    console,
    fail,
    load_settings,
    log,
    migrate_schema,
    require_secret_key,
)
from gatehouse.cli.repair import repair as repair_command
from gatehouse.settings import Settings
from gatehouse.storage.migrate import status

app = typer.Typer(help="Gatehouse onboarding platform.", no_args_is_help=True, add_completion=False)
staff_app = typer.Typer(help="Staff members.", no_args_is_help=True)
app.add_typer(staff_app, name="staff")
keys_app = typer.Typer(
    help="The key ring (GATEHOUSE_SECRET_KEY and previous keys).", no_args_is_help=True
)
app.add_typer(keys_app, name="keys")
app.add_typer(audit_app, name="audit")
app.add_typer(retention_app, name="retention")
app.add_typer(screening.app, name="screening")
app.command("repair")(repair_command)
# Read by prometheus-client when the serving processes import it (gatehouse.metrics).
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def _print_status(settings: Settings) -> None:
    try:
        found = status(settings.database_url)
    except Exception as exc:
        log.exception("could not read the migration status")
        fail(f"could not read the migration status: {type(exc).__name__}")
    current = ", ".join(found.current) if found.current else "none (empty database)"
    sys.stdout.write(f"current: {current}\n")
    sys.stdout.write(f"latest: {found.latest}\n")
    sys.stdout.write("up to date\n" if found.up_to_date else "migrations pending\n")
    if not found.up_to_date:
        # Scripts and readiness checks read the answer from the exit status (docs/platform.md).
        raise typer.Exit(1)


def _warn_private(settings: Settings) -> None:
    if settings.webhook_allow_private_urls:
        log.warning(
            "GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_URLS is set: webhook and callback receivers may be "
            "http, private or loopback addresses. Use this for development and tests only."
        )
    if settings.staff_mfa == "off":
        log.warning(
            "GATEHOUSE_STAFF_MFA=off: staff sign in to the dashboard without a second factor. "
            "Use this for development only."
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
    settings = load_settings(host, port)
    logs.configure(settings.log_level)
    _warn_private(settings)
    require_secret_key(settings)
    migrate_schema(settings)
    os.environ["GATEHOUSE_PUBLIC_URL"] = settings.base_url
    announce(settings)
    if no_worker:
        os.environ["GATEHOUSE_SERVE_NO_WORKER"] = "1"
    else:
        os.environ.pop("GATEHOUSE_SERVE_NO_WORKER", None)
    import uvicorn

    metrics_dir = _metrics_dir(workers)
    log.info(
        "serving",
        extra={"host": host, "port": port, "workers": workers, "metrics_dir": metrics_dir},
    )
    try:
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
            # Bounded headers and deadlines for slow clients (docs/platform.md).
            http="gatehouse.server:GuardedHttpToolsProtocol",
            # A busy host can take more than uvicorn's default 5 s to answer a worker ping.
            timeout_worker_healthcheck=60,
        )
    finally:
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)


def _metrics_dir(workers: int) -> str | None:
    """With several processes, a fresh directory where they all keep their metrics
    (docs/operations.md, "Metrics"); with one, none (its own registry is exact)."""
    os.environ.pop(MULTIPROC_ENV, None)
    if workers <= 1:
        return None
    directory = tempfile.mkdtemp(prefix="gatehouse-metrics-")
    os.environ[MULTIPROC_ENV] = directory
    return directory


@app.command()
def worker(
    metrics_port: Annotated[
        int | None,
        typer.Option(
            envvar="GATEHOUSE_WORKER_METRICS_PORT",
            help="Serve /metrics, /healthz and /readyz on this port (none when unset).",
        ),
    ] = None,
    metrics_host: Annotated[
        str,
        typer.Option(
            envvar="GATEHOUSE_WORKER_METRICS_HOST", help="Interface of the metrics listener."
        ),
    ] = "127.0.0.1",
) -> None:
    """Run only the background workers (beside `serve --no-worker`)."""
    # One process: its own registry is exact (docs/operations.md, "Worker metrics").
    os.environ.pop(MULTIPROC_ENV, None)
    from gatehouse.runtime import Runtime
    from gatehouse.web.listener import MetricsListener
    from gatehouse.workers import run_workers

    settings = load_settings()
    logs.configure(settings.log_level)
    _warn_private(settings)
    require_secret_key(settings)
    migrate_schema(settings)

    async def main() -> None:
        runtime = Runtime.build(settings)
        listener = MetricsListener(runtime)
        try:
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            address = None
            if metrics_port is not None:
                try:
                    host, port = await listener.start(metrics_host, metrics_port)
                except OSError as exc:
                    fail(f"cannot listen on {metrics_host}:{metrics_port}: {exc.strerror}")
                address = f"{host}:{port}"
            log.info("worker started", extra={"pid": os.getpid(), "metrics": address})
            await run_workers(runtime, stop, sample=metrics_port is not None)
        finally:
            await listener.close()
            await runtime.close()
        log.info("worker stopped", extra={"pid": os.getpid()})

    asyncio.run(main())


@app.command()
def migrate(
    show_status: Annotated[
        bool,
        typer.Option("--status", help="Print the current and the latest revision; change nothing."),
    ] = False,
) -> None:
    """Apply migrations and exit (under the migration lock, docs/platform.md)."""
    settings = load_settings()
    logs.configure(settings.log_level)
    if show_status:
        _print_status(settings)
        return
    if settings.is_sqlite:
        # Keep the generated key beside the file from the very first command.
        require_secret_key(settings)
    migrate_schema(settings)
    console.print("[green]schema is up to date[/green]")


@staff_app.command("create")
def staff_create(
    email: Annotated[str, typer.Option(help="Staff email.")],
    role: Annotated[str, typer.Option(help="analyst, mlro, admin or super_admin.")],
) -> None:
    """Create a staff member and print {staffId, email, role, token, inviteUrl,
    inviteExpiresAt} as JSON (the token and the invite link are shown this once)."""
    from gatehouse.accounts import create_staff_member
    from gatehouse.audit.context import WriteContext
    from gatehouse.errors import GatehouseError
    from gatehouse.runtime import Runtime

    settings = load_settings()
    logs.configure("WARNING")
    require_secret_key(settings)
    migrate_schema(settings)

    async def main() -> dict[str, str]:
        runtime = Runtime.build(settings)
        try:
            ctx = WriteContext.system("cli", runtime.now())
            return await create_staff_member(runtime, email, role, ctx)
        finally:
            await runtime.close()

    try:
        created = asyncio.run(main())
    except GatehouseError as exc:
        fail(exc.message)
    sys.stdout.write(json.dumps(created) + "\n")


@keys_app.command("rotate")
def keys_rotate() -> None:
    """Seal every stored secret again under the current key; print counts as JSON.

    Run it after making a new GATEHOUSE_SECRET_KEY current and moving the old one to
    GATEHOUSE_PREVIOUS_SECRET_KEYS. Documents uploaded before custody existed move into
    GATEHOUSE_DOCUMENT_STORE first, sealed (docs/documents.md §7). `digests` counts the
    credentials by key: those under a previous key stop verifying when it leaves the ring
    (docs/operations.md, "Keys and rotation").
    """
    from gatehouse.crypto import Crypto
    from gatehouse.documents import open_store, seal_legacy_documents
    from gatehouse.storage.db import Database
    from gatehouse.storage.sealed import count_digests, rekey_all
    from gatehouse.timeutil import utcnow

    settings = load_settings()
    logs.configure("WARNING")
    require_secret_key(settings)
    migrate_schema(settings)

    crypto = Crypto(settings.resolved_secret_key(), settings.previous_key_list)

    async def main() -> dict[str, object]:
        db = Database(
            settings.database_url,
            pool_size=settings.db_pool_size,
            transaction_pooler=settings.transaction_pooler,
        )
        try:
            store = open_store(settings.document_store, db)
            sealed = await seal_legacy_documents(db, crypto, store, utcnow())
            counts = await rekey_all(db, crypto)
            digests = await count_digests(db, crypto)
        finally:
            await db.dispose()
        return {
            "currentKeyId": crypto.current_kid,
            "keyIds": list(crypto.key_ids),
            "columns": [
                {
                    "column": c.column,
                    "rekeyed": c.rekeyed,
                    "alreadyCurrent": c.current,
                    "unreadable": c.unreadable,
                }
                for c in counts
            ],
            "documentsSealed": sealed,
            "digests": [
                {
                    "column": d.column,
                    "currentKey": d.current,
                    "previousKeys": d.previous,
                    "noKeyId": d.unlabelled,
                    "keysNotInRing": d.outside,
                }
                for d in digests
            ],
        }

    sys.stdout.write(json.dumps(asyncio.run(main())) + "\n")


@app.command()
def demo(
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8000,
) -> None:
    """Seed a demo tenant, intake, API key and super_admin, print them, and serve."""
    from gatehouse.demo import seed_demo

    settings = load_settings(host, port)
    logs.configure("WARNING")
    require_secret_key(settings)
    migrate_schema(settings)
    made = asyncio.run(seed_demo(settings))
    sys.stdout.write(json.dumps(made, indent=2) + "\n")
    sys.stdout.flush()
    sign_in = made["dashboardSignIn"]
    if isinstance(sign_in, dict):  # says which: an invite link, or (MFA off) a password
        console.print(f"Dashboard sign-in: {sign_in['how']}", markup=False, highlight=False)
    serve(host=host, port=port, workers=1, no_worker=False)


def _version(value: bool) -> None:
    if value:
        from gatehouse import __version__

        sys.stdout.write(f"gatehouse {__version__}\n")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Gatehouse onboarding platform."""


def main() -> None:
    app()
