"""information request items keep the applicant's unsent draft

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26 21:50:00

`info_request_items.draft`: what the applicant typed in an item and has not sent, kept by the
server when the requests page sends another item's answer (docs/reference/portal.md
"Drafts"), so that nothing typed is lost without scripts either.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("info_request_items", sa.Column("draft", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("info_request_items") as batch:
        batch.drop_column("draft")
