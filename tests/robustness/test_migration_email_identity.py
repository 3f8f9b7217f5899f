"""Migration 0015: stored emails move to the identity form of docs/identity.md, so an address
sent again after the upgrade finds its row; a row the rule refuses, or whose new form another
row already has, is left as it was. SQLite by default, PostgreSQL with
GATEHOUSE_TEST_DATABASE_URL."""

from __future__ import annotations

from alembic import command

from gatehouse.storage.migrate import alembic_config
from tests.robustness.test_migration_sandbox import execute_with, rows

STAFF_ROW = (
    "INSERT INTO staff_members (id, email, role, status, created_at) "
    "VALUES (:id, :email, 'admin', 'active', '2026-01-01 00:00:00+00')"
)
APPLICATION_ROW = (
    "INSERT INTO applications (id, tenant_id, identity, applicant_email, status, locked, "
    "form_data, event_sequence, request_sequence, created_at, updated_at, "
    "status_changed_at) VALUES (:id, 'ten_old', :identity, :email, 'pending', false, "
    "'{}', 0, 0, '2026-01-01 00:00:00+00', '2026-01-01 00:00:00+00', "
    "'2026-01-01 00:00:00+00')"
)
TENANT_ROW = (
    "INSERT INTO tenants (id, name, status, webhook_endpoint_cap, created_at, updated_at) "
    "VALUES ('ten_old', 'Old', 'active', 5, '2026-01-01 00:00:00+00', "
    "'2026-01-01 00:00:00+00')"
)


def _staff(url: str, staff_id: str, email: str) -> None:
    execute_with(url, STAFF_ROW, {"id": staff_id, "email": email})


def _application(url: str, app_id: str, email: str, identity: str) -> None:
    execute_with(url, APPLICATION_ROW, {"id": app_id, "email": email, "identity": identity})


def test_0015_moves_stored_emails_to_the_identity_form(empty_database_url: str) -> None:
    url = empty_database_url
    config = alembic_config(url)
    command.upgrade(config, "0014")
    _staff(url, "stf_moved", "ann@b\u00fccher.test")
    _staff(url, "stf_nfd", "bo@bu\u0308cher.test")
    _staff(url, "stf_refused", "j\u00f6rg@example.test")
    _staff(url, "stf_taken_a", "cy@xn--bcher-kva.test")
    _staff(url, "stf_taken_b", "cy@b\u00fccher.test")
    execute_with(url, TENANT_ROW, {})
    _application(url, "app_email", "kim@b\u00fccher.test", "email:kim@b\u00fccher.test")
    _application(url, "app_ref", "kim@b\u00fccher.test", "ref:crm-1")

    command.upgrade(config, "0015")
    assert dict(rows(url, "SELECT id, email FROM staff_members")) == {
        "stf_moved": "ann@xn--bcher-kva.test",
        "stf_nfd": "bo@xn--bcher-kva.test",
        "stf_refused": "j\u00f6rg@example.test",
        "stf_taken_a": "cy@xn--bcher-kva.test",
        "stf_taken_b": "cy@b\u00fccher.test",
    }
    found = rows(url, "SELECT id, identity, applicant_email FROM applications ORDER BY id")
    assert [tuple(row) for row in found] == [
        ("app_email", "email:kim@xn--bcher-kva.test", "kim@xn--bcher-kva.test"),
        ("app_ref", "ref:crm-1", "kim@xn--bcher-kva.test"),
    ]
