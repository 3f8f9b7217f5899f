"""The matching libraries (about 500 MB with their name tables) never load in an API
process, nor in a worker's own process: only in the matcher's child (docs/screening.md,
"Operating it")."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from gatehouse.app import create_app
from gatehouse.settings import Settings
from gatehouse.workers import registered_workers
create_app(Settings(database_url='sqlite:///' + sys.argv[1], secret_key='x' * 40))
names = [name for name, _ in registered_workers()]
heavy = sorted(m for m in ('nomenklatura', 'followthemoney', 'rigour', 'sklearn', 'icu')
               if m in sys.modules)
print(','.join(names), '|', ','.join(heavy) or 'none')
"""


def test_neither_the_app_nor_the_workers_import_the_matching_libraries(tmp_path: object) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, f"{tmp_path}/probe.db"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    workers, heavy = (part.strip() for part in done.stdout.split("|"))
    assert "screening" in workers.split(",")
    assert heavy == "none"
