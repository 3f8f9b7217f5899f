"""`gatehouse screening …`: loading watchlists (docs/screening.md, "Lists")."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from gatehouse import logs
from gatehouse.cli.common import fail, load_settings, migrate_schema, require_secret_key

app = typer.Typer(help="Screening against watchlists.", no_args_is_help=True)


@app.command("load")
def load(
    path: Annotated[Path, typer.Argument(help="An entities.ftm.json file (FollowTheMoney).")],
    list_name: Annotated[str, typer.Option("--list", help="The list's name.")],
) -> None:
    """Load or replace a list; prints {"list", "entities", "version"}. A bad line refuses
    the whole load (exit 2) and leaves the list in force as it was."""
    from gatehouse.errors import GatehouseError
    from gatehouse.runtime import Runtime
    from gatehouse.screening import BadLine, LoadResult, load_list

    settings = load_settings()
    logs.configure("WARNING")
    require_secret_key(settings)
    if not path.is_file():
        fail(f"{path}: no such file")
    migrate_schema(settings)

    async def main() -> LoadResult:
        runtime = Runtime.build(settings)
        try:
            return await load_list(runtime, path, list_name)
        finally:
            await runtime.close()

    try:
        result = asyncio.run(main())
    except BadLine as exc:
        fail(f"{path}: {exc}")
    except GatehouseError as exc:
        fail(exc.message)
    except OSError as exc:
        fail(f"{path}: {exc.strerror or type(exc).__name__}")
    out = {"list": result.list, "entities": result.entities, "version": result.version}
    sys.stdout.write(json.dumps(out) + "\n")
