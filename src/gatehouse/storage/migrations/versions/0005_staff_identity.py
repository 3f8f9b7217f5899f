"""staff identity: passwords, second factors, invites, personal tokens, sign-in flows

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 09:00:00

Every existing staff token becomes the first personal token of its staff member, and every
open dashboard session ends: sessions opened with a pasted token had no second factor
(docs/staff-identity.md).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _staff_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["staff_id"], ["staff_members.id"], name=op.f(f"fk_{table}_staff_id_staff_members")
    )


def upgrade() -> None:
    op.create_table(
        "staff_credentials",
        sa.Column("staff_id", sa.String(length=40), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=True),
        sa.Column("password_set_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("totp_secret_encrypted", sa.Text(), nullable=True),
        sa.Column("totp_enrolled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("totp_last_step", sa.BigInteger(), nullable=True),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_sign_in_at", sa.DateTime(timezone=True), nullable=True),
        _staff_fk("staff_credentials"),
        sa.PrimaryKeyConstraint("staff_id", name=op.f("pk_staff_credentials")),
    )
    op.create_table(
        "staff_sign_in_failures",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("staff_id", sa.String(length=40), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        _staff_fk("staff_sign_in_failures"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_staff_sign_in_failures")),
    )
    op.create_index(
        "ix_staff_sign_in_failures_staff_at", "staff_sign_in_failures", ["staff_id", "at"]
    )
    op.create_table(
        "staff_invites",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("staff_id", sa.String(length=40), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        _staff_fk("staff_invites"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_staff_invites")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_staff_invites_token_hash")),
    )
    op.create_index(op.f("ix_staff_invites_staff_id"), "staff_invites", ["staff_id"])
    op.create_table(
        "staff_recovery_codes",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("staff_id", sa.String(length=40), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        _staff_fk("staff_recovery_codes"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_staff_recovery_codes")),
    )
    op.create_index(op.f("ix_staff_recovery_codes_staff_id"), "staff_recovery_codes", ["staff_id"])
    op.create_table(
        "staff_passkeys",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("staff_id", sa.String(length=40), nullable=False),
        sa.Column("credential_id", sa.String(length=1400), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("transports", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        _staff_fk("staff_passkeys"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_staff_passkeys")),
        sa.UniqueConstraint("credential_id", name=op.f("uq_staff_passkeys_credential_id")),
    )
    op.create_index(op.f("ix_staff_passkeys_staff_id"), "staff_passkeys", ["staff_id"])
    op.create_table(
        "staff_tokens",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("staff_id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        _staff_fk("staff_tokens"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_staff_tokens")),
    )
    op.create_index(op.f("ix_staff_tokens_staff_id"), "staff_tokens", ["staff_id"])
    op.create_table(
        "staff_sign_in_flows",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("staff_id", sa.String(length=40), nullable=True),
        sa.Column("purpose", sa.String(length=20), nullable=False),
        sa.Column("csrf_token", sa.String(length=64), nullable=False),
        sa.Column("payload_encrypted", sa.Text(), nullable=True),
        sa.Column("next_path", sa.String(length=500), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        _staff_fk("staff_sign_in_flows"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_staff_sign_in_flows")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_staff_sign_in_flows_token_hash")),
    )
    op.create_index(op.f("ix_staff_sign_in_flows_staff_id"), "staff_sign_in_flows", ["staff_id"])
    op.create_index(
        op.f("ix_staff_sign_in_flows_expires_at"), "staff_sign_in_flows", ["expires_at"]
    )
    with op.batch_alter_table("dashboard_sessions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True))

    # The token each staff member was created with stays valid, as a personal token.
    op.execute(
        "INSERT INTO staff_tokens (id, staff_id, name, token_hash, created_at) "
        "SELECT 'stk_' || substr(id, 5), id, 'First token', token_hash, created_at "
        "FROM staff_members"
    )
    # Ended as of their start: only whether `ended_at` is set is ever read.
    op.execute("UPDATE dashboard_sessions SET ended_at = created_at WHERE ended_at IS NULL")


def downgrade() -> None:
    with op.batch_alter_table("dashboard_sessions", schema=None) as batch_op:
        batch_op.drop_column("last_seen_at")
    op.drop_index(op.f("ix_staff_sign_in_flows_expires_at"), table_name="staff_sign_in_flows")
    op.drop_index(op.f("ix_staff_sign_in_flows_staff_id"), table_name="staff_sign_in_flows")
    op.drop_table("staff_sign_in_flows")
    op.drop_index(op.f("ix_staff_tokens_staff_id"), table_name="staff_tokens")
    op.drop_table("staff_tokens")
    op.drop_index(op.f("ix_staff_passkeys_staff_id"), table_name="staff_passkeys")
    op.drop_table("staff_passkeys")
    op.drop_index(op.f("ix_staff_recovery_codes_staff_id"), table_name="staff_recovery_codes")
    op.drop_table("staff_recovery_codes")
    op.drop_index(op.f("ix_staff_invites_staff_id"), table_name="staff_invites")
    op.drop_table("staff_invites")
    op.drop_index("ix_staff_sign_in_failures_staff_at", table_name="staff_sign_in_failures")
    op.drop_table("staff_sign_in_failures")
    op.drop_table("staff_credentials")
