"""tenant console: single-use console links, console sessions, delivery latency

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26 18:00:00

A console link and a console session each name the API key that minted them
(docs/console.md). Deliveries keep how long their last attempt took.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "console_links",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("key_id", sa.String(length=32), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["key_id"], ["api_keys.id"], name=op.f("fk_console_links_key_id_api_keys")
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_console_links_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_console_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_console_links_token_hash")),
    )
    with op.batch_alter_table("console_links") as batch:
        batch.create_index(batch.f("ix_console_links_tenant_id"), ["tenant_id"], unique=False)
    op.create_table(
        "console_sessions",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("key_id", sa.String(length=32), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("csrf_token", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("flash_encrypted", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["key_id"], ["api_keys.id"], name=op.f("fk_console_sessions_key_id_api_keys")
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_console_sessions_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_console_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_console_sessions_token_hash")),
    )
    with op.batch_alter_table("console_sessions") as batch:
        batch.create_index(batch.f("ix_console_sessions_key_id"), ["key_id"], unique=False)
        batch.create_index(batch.f("ix_console_sessions_tenant_id"), ["tenant_id"], unique=False)
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.add_column(sa.Column("last_latency_ms", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.drop_column("last_latency_ms")
    with op.batch_alter_table("console_sessions") as batch:
        batch.drop_index(batch.f("ix_console_sessions_tenant_id"))
        batch.drop_index(batch.f("ix_console_sessions_key_id"))
    op.drop_table("console_sessions")
    with op.batch_alter_table("console_links") as batch:
        batch.drop_index(batch.f("ix_console_links_tenant_id"))
    op.drop_table("console_links")
