"""Migration 0019 (docs/insights.md "Speed"): the daily summary is filled from the rows that
exist, equal to a rebuild from them; the triggers that keep it are all there at the head;
the downgrade removes them with the tables. SQLite by default, PostgreSQL with
GATEHOUSE_TEST_DATABASE_URL."""

from __future__ import annotations

import asyncio
import importlib

from alembic import command
from sqlalchemy import text

from gatehouse.runtime import Runtime
from gatehouse.storage.migrate import alembic_config
from tests.conftest import make_settings
from tests.insights.reference import read_rows, rebuilt, stored
from tests.robustness.conftest import empty_database_url  # noqa: F401 (the fixture)
from tests.robustness.test_migration_history import execute
from tests.robustness.test_migration_sandbox import rows

MIGRATION = importlib.import_module("gatehouse.storage.migrations.versions.0019_insights_summary")
AT = "'2026-11-20 10:00:00+00:00'"


def _application(app_id: str, label: str, status: str, created: str, changed: str) -> str:
    return (
        "INSERT INTO applications (id, tenant_id, identity, label_id, status, locked, form_data, "
        "event_sequence, request_sequence, created_at, updated_at, status_changed_at, "
        f"submitted_at) VALUES ('{app_id}', 'ten_a', 'email:{app_id}', {label}, '{status}', "
        f"false, '{{}}', 0, 0, {created}, {created}, {changed}, {created})"
    )


def _decision(n: int, app_id: str, action: str, staff: str, at: str) -> str:
    return (
        "INSERT INTO decisions (id, application_id, action, from_status, to_status, by_role, "
        f"by_staff_id, at) VALUES ('dec_{n}', '{app_id}', '{action}', 'pending', 'x', 'mlro', "
        f"'{staff}', {at})"
    )


SETUP = (
    "INSERT INTO tenants (id, name, status, webhook_endpoint_cap, environment, created_at, "
    f"updated_at) VALUES ('ten_a', 'A', 'active', 5, 'live', {AT}, {AT})",
    "INSERT INTO intakes (id, tenant_id, position, name, attached, checklist, form_fields, "
    f"created_at, updated_at) VALUES ('lbl_a', 'ten_a', 1, 'A', true, '[]', '[]', {AT}, {AT})",
    _application("app_1", "'lbl_a'", "active", AT, "'2026-11-21 12:30:00+00:00'"),
    _application("app_2", "'lbl_a'", "rejected", AT, "'2026-11-20 10:00:30+00:00'"),
    _application("app_3", "NULL", "pending", "'2026-11-19 23:59:59+00:00'", AT),
    _application("app_4", "'lbl_a'", "needs_info", "'2026-10-01 08:00:00+00:00'", AT),
    _decision(1, "app_1", "approve", "stf_a", "'2026-11-21 11:00:00+00:00'"),
    _decision(2, "app_1", "approved", "stf_b", "'2026-11-21 12:30:00+00:00'"),
    _decision(3, "app_2", "reject", "stf_a", "'2026-11-20 10:00:30+00:00'"),
    _decision(4, "app_4", "hold", "stf_a", AT),
    "INSERT INTO application_risk (application_id, score, computed_level, level, factors, "
    f"computed_at) VALUES ('app_3', 20, 'low', 'high', '[]', {AT})",
    "INSERT INTO screening_hits (id, application_id, subject_kind, subject_field, subject_name, "
    "list_name, entity_id, entity_digest, entity, score, explanation, status, current, "
    f"created_at, updated_at) VALUES ('hit_1', 'app_3', 'person', 'directorName', 'X', 'l', "
    f"'e1', 'd', '{{}}', 0.9, '[]', 'match', true, {AT}, {AT})",
)


def test_0019_fills_the_summary_from_what_exists(empty_database_url: str) -> None:  # noqa: F811
    config = alembic_config(empty_database_url)
    command.upgrade(config, "0018")
    for statement in SETUP:
        execute(empty_database_url, statement)

    command.upgrade(config, "0019")

    async def compare() -> None:
        runtime = Runtime.build(make_settings(empty_database_url))
        try:
            summary = await stored(runtime)
            assert summary == rebuilt(await read_rows(runtime))
            assert len(summary["days"]) == 3
            assert len(summary["staff"]) == 3
        finally:
            await runtime.close()

    asyncio.run(compare())
    command.downgrade(config, "0018")
    if empty_database_url.startswith("sqlite"):
        left = rows(
            empty_database_url, "SELECT name FROM sqlite_master WHERE name LIKE 'insights%'"
        )
    else:
        left = rows(
            empty_database_url, "SELECT tgname FROM pg_trigger WHERE tgname LIKE 'insights%'"
        )
    assert left == []


async def test_every_trigger_is_there_at_the_head(runtime: Runtime) -> None:
    """A later migration that rebuilt one of the four tables on SQLite would drop them."""
    if runtime.db.is_sqlite:
        sql = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'insights%'"
        wanted = MIGRATION.sqlite_trigger_names()
    else:
        sql = "SELECT tgname FROM pg_trigger WHERE tgname LIKE 'insights%'"
        wanted = MIGRATION.postgres_trigger_names()
    async with runtime.db.read() as session:
        names = set((await session.execute(text(sql))).scalars())
    assert names == set(wanted)
    assert len(wanted) >= 10
