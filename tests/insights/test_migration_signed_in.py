"""Migration 0013 (docs/insights.md "Speed"): `applications.signed_in_at` is filled from the
portal sessions recorded before it, the first one's time; an application never signed in to
stays empty. SQLite by default, PostgreSQL with GATEHOUSE_TEST_DATABASE_URL."""

from __future__ import annotations

from alembic import command

from gatehouse.storage.migrate import alembic_config
from tests.robustness.conftest import empty_database_url  # noqa: F401 (the fixture)
from tests.robustness.test_migration_history import execute
from tests.robustness.test_migration_sandbox import rows

# Timestamps are SQL literals: a bound string is no timestamp to asyncpg.
SETUP = (
    "INSERT INTO tenants (id, name, status, webhook_endpoint_cap, environment, created_at, "
    "updated_at) VALUES ('ten_a', 'A', 'active', 5, 'live', '2026-11-20 10:00:00+00', "
    "'2026-11-20 10:00:00+00')",
    "INSERT INTO applications (id, tenant_id, identity, status, locked, form_data, "
    "event_sequence, request_sequence, created_at, updated_at, status_changed_at) "
    "VALUES ('app_seen', 'ten_a', 'email:seen', 'pending', false, '{}', 0, 0, "
    "'2026-11-20 10:00:00+00', '2026-11-20 10:00:00+00', '2026-11-20 10:00:00+00')",
    "INSERT INTO applications (id, tenant_id, identity, status, locked, form_data, "
    "event_sequence, request_sequence, created_at, updated_at, status_changed_at) "
    "VALUES ('app_never', 'ten_a', 'email:never', 'pending', false, '{}', 0, 0, "
    "'2026-11-20 10:00:00+00', '2026-11-20 10:00:00+00', '2026-11-20 10:00:00+00')",
    "INSERT INTO portal_sessions (id, application_id, member_id, token_hash, csrf_token, "
    "created_at, expires_at) VALUES ('pss_0', 'app_seen', 'mem_a', 'h0', 'c', "
    "'2026-11-21 09:00:00+00', '2026-11-21 09:00:00+00')",
    "INSERT INTO portal_sessions (id, application_id, member_id, token_hash, csrf_token, "
    "created_at, expires_at) VALUES ('pss_1', 'app_seen', 'mem_a', 'h1', 'c', "
    "'2026-11-21 08:00:00+00', '2026-11-21 08:00:00+00')",
)


def test_0013_fills_the_first_sign_in(empty_database_url: str) -> None:  # noqa: F811
    config = alembic_config(empty_database_url)
    command.upgrade(config, "0011")
    for statement in SETUP:
        execute(empty_database_url, statement)

    command.upgrade(config, "0013")

    found = dict(rows(empty_database_url, "SELECT id, signed_in_at FROM applications ORDER BY id"))
    assert found["app_never"] is None
    assert "2026-11-21" in str(found["app_seen"])
    assert "08:00:00" in str(found["app_seen"])
    command.downgrade(config, "0011")
