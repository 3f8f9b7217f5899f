"""The migration history is one chain, and databases migrated when it had one
branch per area (core, webhooks, verification, dashboard) upgrade onto it
cleanly (docs/platform.md, "Migrations"). SQLite by default, PostgreSQL with
GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from gatehouse.storage import tables  # noqa: F401  (registers every table)
from gatehouse.storage.base import Base
from gatehouse.storage.db import null_pool_engine
from gatehouse.storage.migrate import MIGRATIONS, OLD_LAYOUT, alembic_config, upgrade

# How the four first revisions were laid out before the history became one chain.
OLD_HEADERS = {
    "0001": (None, ("core",), None),
    "0002": (None, ("webhooks",), "0001"),
    "0003": (None, ("verification",), "0001"),
    "0004": (None, ("dashboard",), "0001"),
}


def old_layout(folder: Path) -> Path:
    """A copy of the migrations with 0001-0004 rewritten to the old branch layout."""
    shutil.copytree(MIGRATIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for path in (folder / "versions").glob("*.py"):
        revision = path.name[:4]
        if revision not in OLD_HEADERS:
            path.unlink()  # later revisions did not exist then
            continue
        down, labels, depends = OLD_HEADERS[revision]
        source = path.read_text()
        for name, value in (
            ("down_revision", down),
            ("branch_labels", labels),
            ("depends_on", depends),
        ):
            source, count = re.subn(
                rf"^{name}: .*$",
                f"{name}: str | Sequence[str] | None = {value!r}",
                source,
                flags=re.M,
            )
            assert count == 1
        path.write_text(source)
    return folder


def _state(connection: Connection) -> dict[str, Any]:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "render_as_batch": True}
    )
    return {
        "versions": sorted(r[0] for r in connection.execute(text("SELECT * FROM alembic_version"))),
        "tables": set(inspect(connection).get_table_names()),
        "differences": list(compare_metadata(context, Base.metadata)),
        "audit": [r[0] for r in connection.execute(text("SELECT id FROM audit_log"))],
    }


def state(url: str) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        engine = null_pool_engine(url)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(_state)
        finally:
            await engine.dispose()

    return asyncio.run(read())


def execute(url: str, sql: str) -> None:
    async def run() -> None:
        engine = null_pool_engine(url)
        try:
            async with engine.begin() as connection:
                await connection.execute(text(sql))
        finally:
            await engine.dispose()

    asyncio.run(run())


def test_the_history_is_one_chain() -> None:
    script = ScriptDirectory.from_config(alembic_config(""))
    assert len(script.get_heads()) == 1
    for revision in script.walk_revisions():
        assert revision.branch_labels == set(), revision.revision
        assert not revision.dependencies, revision.revision
        assert revision.down_revision is None or isinstance(revision.down_revision, str)
        assert not revision.is_merge_point


@pytest.mark.parametrize(
    ("targets", "old_rows"),
    [
        (["heads"], ["0002", "0003", "0004"]),  # every branch: the usual old database
        (["core@head"], ["0001"]),
        (["verification@head"], ["0003"]),  # meant 0001 and 0003
        (["verification@head", "dashboard@head"], ["0003", "0004"]),
        (["webhooks@head", "dashboard@head"], ["0002", "0004"]),
    ],
)
def test_a_database_of_the_old_branch_layout_upgrades_onto_the_chain(
    empty_database_url: str, tmp_path: Path, targets: list[str], old_rows: list[str]
) -> None:
    old = Config()
    old.set_main_option("script_location", str(old_layout(tmp_path / "old")))
    old.attributes["url"] = empty_database_url
    for target in targets:
        command.upgrade(old, target)
    before = state(empty_database_url)
    assert before["versions"] == old_rows  # the old layout really was recreated
    execute(
        empty_database_url,
        "INSERT INTO audit_log (id, at, actor, action, target) "
        "VALUES ('aud_kept', CURRENT_TIMESTAMP, 'system', 'test', 'none')",
    )

    upgrade(empty_database_url)
    upgrade(empty_database_url)  # and again: nothing left to do

    after = state(empty_database_url)
    head = ScriptDirectory.from_config(alembic_config(empty_database_url)).get_current_head()
    assert after["versions"] == [head]
    assert set(Base.metadata.tables) <= after["tables"]
    assert after["differences"] == []
    assert after["audit"] == ["aud_kept"]


def test_old_layout_revisions_name_their_first_table() -> None:
    # Which old revisions a database holds is read from these tables.
    script = ScriptDirectory.from_config(alembic_config(""))
    for revision, table in OLD_LAYOUT.items():
        found = script.get_revision(revision)
        assert found is not None
        assert found.path is not None
        first = re.search(r'op\.create_table\(\s*"([a-z_]+)"', Path(found.path).read_text())
        assert first is not None
        assert first.group(1) == table
