"""`gatehouse repair [--apply]`: bring every application's status back in line with its facts
(docs/operations.md "Repairing statuses"; docs/case-work.md "Checking a status").

Without `--apply` it only reads and prints, one JSON line per application that would change;
with it, each of those is repaired in its own transaction (history action `repair`,
`application.status.changed` reason `repair`) and printed once done.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from gatehouse.cli.common import console, prepared_settings, print_json_line


def repair(
    apply: Annotated[
        bool,
        typer.Option("--apply", help="Make the changes (without it, only print them)."),
    ] = False,
) -> None:
    """Print, one JSON line each, the applications whose status contradicts their facts;
    with --apply, repair them."""
    from gatehouse.audit.context import WriteContext
    from gatehouse.realignment import repair_all
    from gatehouse.runtime import Runtime

    settings = prepared_settings()

    async def main() -> int:
        runtime = Runtime.build(settings)
        count = 0
        try:
            lines = repair_all(
                runtime.db, lambda: WriteContext.system("repair", runtime.now()), apply=apply
            )
            async for line in lines:
                print_json_line(line.as_json())
                count += 1
        finally:
            await runtime.close()
        return count

    count = asyncio.run(main())
    if apply:
        console.print(f"{count} application(s) repaired.", markup=False, highlight=False)
    else:
        console.print(
            f"{count} application(s) would change; nothing was changed (run with --apply).",
            markup=False,
            highlight=False,
        )
