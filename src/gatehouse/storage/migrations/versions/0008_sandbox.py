"""sandbox tenants and sandbox verification clients

Revision ID: 0008
Revises: 0006
Create Date: 2026-11-24 09:00:00

Every existing tenant is `live` and every existing verification client is not a sandbox one.
Every stored event body gains the top-level `environment` of the webhook envelope
(docs/reference/webhooks.md, "Sandbox tenants"): all of them belong to live tenants, so
`"live"`. Replays and retries of events stored before this revision therefore send the same
envelope shape as new events. The bodies are JSON objects written by the service (never
`{}`); the key is added in front of the others, which changes nothing for a JSON reader.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PREFIX = '{"environment":"live",'


def upgrade() -> None:
    op.add_column(
        "tenants",
        sa.Column("environment", sa.String(length=20), nullable=False, server_default="live"),
    )
    op.add_column(
        "verification_clients",
        sa.Column("sandbox", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    events = sa.table("events", sa.column("body", sa.Text()))
    op.execute(
        events.update()
        .where(events.c.body.like("{%"), events.c.body != "{}")
        .values(body=sa.literal(_PREFIX) + sa.func.substr(events.c.body, 2))
    )


def downgrade() -> None:
    events = sa.table("events", sa.column("body", sa.Text()))
    op.execute(
        events.update()
        .where(events.c.body.like(_PREFIX + "%"))
        .values(body=sa.literal("{") + sa.func.substr(events.c.body, len(_PREFIX) + 1))
    )
    with op.batch_alter_table("verification_clients") as batch:
        batch.drop_column("sandbox")
    with op.batch_alter_table("tenants") as batch:
        batch.drop_column("environment")
