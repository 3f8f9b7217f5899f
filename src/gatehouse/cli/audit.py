"""`gatehouse audit verify [--head JSON]` and `gatehouse retention plan [--as-of RFC3339]`
(docs/audit-and-evidence.md, docs/operations.md "Retention")."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Annotated

import typer

from gatehouse import logs
from gatehouse.cli.common import fail, load_settings, migrate_schema, require_secret_key
from gatehouse.crypto import Crypto
from gatehouse.retention import PlannedErasure
from gatehouse.settings import Settings
from gatehouse.storage.db import Database
from gatehouse.timeutil import parse_ts, utcnow

audit_app = typer.Typer(help="The sealed audit chain.", no_args_is_help=True)
retention_app = typer.Typer(help="Retention of finished and abandoned cases.", no_args_is_help=True)


def _ready() -> Settings:
    settings = load_settings()
    logs.configure("WARNING")
    require_secret_key(settings)
    migrate_schema(settings)
    return settings


@audit_app.command("verify")
def verify(
    head: Annotated[
        str | None,
        typer.Option(help="A head from GET /staff/v1/audit/head, as JSON, kept elsewhere."),
    ] = None,
) -> None:
    """Walk the chain: exit 0 and {entries, head} when it holds, exit 1 and {brokenAt, reason}
    at the first entry altered, removed or moved (or a head that does not match)."""
    from gatehouse.records import verify_chain, verify_head

    settings = _ready()
    crypto = Crypto(settings.resolved_secret_key(), settings.previous_key_list)

    async def main() -> tuple[bool, object]:
        db = Database(settings.database_url)
        try:
            verdict = await (verify_chain(db) if head is None else verify_head(db, crypto, head))
        finally:
            await db.dispose()
        return verdict.intact, verdict.body

    intact, body = asyncio.run(main())
    sys.stdout.write(json.dumps(body) + "\n")
    if not intact:
        raise typer.Exit(1)


@retention_app.command("plan")
def plan(
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="RFC 3339 time to plan for (default: now).")
    ] = None,
) -> None:
    """Print one JSON line per application the retention sweep would erase; erase nothing."""
    from gatehouse.retention import plan as retention_plan

    moment = utcnow()
    if as_of is not None:
        try:
            moment = parse_ts(as_of)
        except ValueError as exc:
            fail(f"--as-of: {exc}")
    settings = _ready()

    async def main() -> list[PlannedErasure]:
        db = Database(settings.database_url)
        try:
            return await retention_plan(db, moment)
        finally:
            await db.dispose()

    for line in asyncio.run(main()):
        sys.stdout.write(json.dumps(line) + "\n")
