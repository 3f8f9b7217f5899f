"""portal branding: a tenant's display name, accent colour and logo

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24 12:00:00

Every existing tenant has none of them; the portal then shows the tenant's name in the
default colours (docs/reference/portal.md, "Branding").
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tenants") as batch:
        batch.add_column(sa.Column("display_name", sa.String(length=100), nullable=True))
        batch.add_column(sa.Column("accent_color", sa.String(length=7), nullable=True))
        batch.add_column(sa.Column("logo_type", sa.String(length=40), nullable=True))
        batch.add_column(sa.Column("logo_digest", sa.String(length=64), nullable=True))
        batch.create_index(batch.f("ix_tenants_logo_digest"), ["logo_digest"], unique=False)
    op.create_table(
        "tenant_logos",
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_tenant_logos_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("tenant_id", name=op.f("pk_tenant_logos")),
    )


def downgrade() -> None:
    op.drop_table("tenant_logos")
    with op.batch_alter_table("tenants") as batch:
        batch.drop_index(batch.f("ix_tenants_logo_digest"))
        batch.drop_column("logo_digest")
        batch.drop_column("logo_type")
        batch.drop_column("accent_color")
        batch.drop_column("display_name")
