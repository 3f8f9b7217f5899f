"""staff members keep no token digest: tokens are only in staff_tokens

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 11:00:00

`staff_members.token_hash` held a copy of the first staff token's digest. Since 0005 staff
tokens are rows of `staff_tokens` (0005 copied this column there), and nothing read the copy:
it was not checked at sign-in, `gatehouse keys rotate` did not count it, and it stayed after
the token was revoked. Dropping it removes a stale credential digest. A process of a version
before this one still selects and writes the column: stop those before migrating
(docs/operations.md, "Upgrades").
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # SQLite cannot drop a column in place everywhere; batch mode copies the table.
    with op.batch_alter_table("staff_members") as batch:
        batch.drop_column("token_hash")


def downgrade() -> None:
    # The dropped digests cannot be made again (they need the tokens), so the column comes
    # back nullable and empty: NOT NULL, as before 0011, would refuse the existing rows.
    # Nothing of the older versions reads it; their staff creation fills it again.
    with op.batch_alter_table("staff_members") as batch:
        batch.add_column(sa.Column("token_hash", sa.String(length=64), nullable=True))
