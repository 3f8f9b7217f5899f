"""the credentials epoch: a row and triggers every writer of api_keys or tenants fires

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26 18:00:00

The API-key cache (limits/credentials.py) used to learn of credential changes from
SQLAlchemy session hooks and a regular expression over SQL text, so a write through a
plain connection, the driver or a SQL console went unseen until the cache's TTL ran out.
Triggers on `api_keys` and `tenants` now give the signal for every writer:

- SQLite: each changed or deleted row adds one to `credential_epoch.value`;
- PostgreSQL: each statement sends `NOTIFY gatehouse_credentials` (to every process's
  listener) and `NOTICE gatehouse_credentials_changed` (to the writing connection).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("api_keys", "tenants")
# A new key or tenant cannot be stale in any cache: changes and deletions are the signal.
OPERATIONS = ("UPDATE", "DELETE")
_BUMP = "UPDATE credential_epoch SET value = value + 1 WHERE id = 1;"

POSTGRES_FUNCTION = """
CREATE OR REPLACE FUNCTION gatehouse_credentials_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gatehouse_credentials', '');
  RAISE NOTICE USING MESSAGE = 'gatehouse_credentials_changed';
  RETURN NULL;
END
$$
"""


def sqlite_trigger_sql(table: str, operation: str) -> str:
    """The SQLite trigger of one table and operation (also used to re-create them)."""
    name = f"credentials_{table}_{operation.lower()}"
    head = f"CREATE TRIGGER IF NOT EXISTS {name} AFTER {operation} ON {table} FOR EACH ROW"
    return head + " BEGIN " + _BUMP + " END"


def upgrade() -> None:
    op.create_table(
        "credential_epoch",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.execute("INSERT INTO credential_epoch (id, value) VALUES (1, 0)")
    if op.get_bind().dialect.name == "postgresql":
        op.execute(POSTGRES_FUNCTION)
        for table in TABLES:
            op.execute(
                f"CREATE TRIGGER credentials_changed AFTER UPDATE OR DELETE OR TRUNCATE "
                f"ON {table} FOR EACH STATEMENT "
                "EXECUTE FUNCTION gatehouse_credentials_changed()"
            )
        return
    for table in TABLES:
        for operation in OPERATIONS:
            op.execute(sqlite_trigger_sql(table, operation))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"DROP TRIGGER IF EXISTS credentials_changed ON {table}")
        op.execute("DROP FUNCTION IF EXISTS gatehouse_credentials_changed()")
    else:
        for table in TABLES:
            for operation in OPERATIONS:
                op.execute(f"DROP TRIGGER IF EXISTS credentials_{table}_{operation.lower()}")
    op.drop_table("credential_epoch")
