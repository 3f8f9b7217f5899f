"""stored emails move to the identity form of docs/identity.md

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26 18:00:00

Emails used to be kept trimmed and lowercased as sent. The identity rule keeps them in one
ASCII form: NFC, an ASCII local part lowercased, the domain as its IDNA `xn--` form. This
rewrites the rows whose stored email the rule maps to another text (an internationalised
domain, a decomposed letter), so the same address sent again finds its row. A row the rule
refuses (a non-ASCII local part) is left as it is: no new input can reach it by email any
more, only by its ids. A row whose new form is already taken by another row in the same
scope is left as it is too (the two stay apart, as they were). Nothing is undone on
downgrade: the old form is not kept.
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from gatehouse.domain.normalize import normalize_email

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

EMAIL_PREFIX = "email:"


def _moved(old: str | None) -> str | None:
    """The identity form of `old` when it differs from `old`, else None."""
    if old is None:
        return None
    new = normalize_email(old)
    return new if new is not None and new != old else None


def _free(bind: Any, statement: str, **params: Any) -> bool:
    return bind.execute(sa.text(statement), params).first() is None


def _staff(bind: Any) -> None:
    rows = bind.execute(sa.text("SELECT id, email FROM staff_members")).all()
    for row_id, email in rows:
        new = _moved(email)
        if new and _free(bind, "SELECT 1 FROM staff_members WHERE email = :e", e=new):
            bind.execute(
                sa.text("UPDATE staff_members SET email = :e WHERE id = :i"),
                {"e": new, "i": row_id},
            )


def _members(bind: Any) -> None:
    rows = bind.execute(sa.text("SELECT id, application_id, email FROM members")).all()
    for row_id, application_id, email in rows:
        new = _moved(email)
        taken = "SELECT 1 FROM members WHERE application_id = :a AND email = :e"
        if new and _free(bind, taken, a=application_id, e=new):
            bind.execute(
                sa.text("UPDATE members SET email = :e WHERE id = :i"), {"e": new, "i": row_id}
            )


def _applications(bind: Any) -> None:
    rows = bind.execute(
        sa.text("SELECT id, tenant_id, identity, applicant_email FROM applications")
    ).all()
    for row_id, tenant_id, identity, email in rows:
        new = _moved(email)
        if new is None:
            continue
        new_identity = identity
        if identity == EMAIL_PREFIX + email:
            new_identity = EMAIL_PREFIX + new
            taken = "SELECT 1 FROM applications WHERE tenant_id = :t AND identity = :k"
            if not _free(bind, taken, t=tenant_id, k=new_identity):
                continue
        bind.execute(
            sa.text("UPDATE applications SET applicant_email = :e, identity = :k WHERE id = :i"),
            {"e": new, "k": new_identity, "i": row_id},
        )


def _customers(bind: Any) -> None:
    rows = bind.execute(sa.text("SELECT id, email FROM verification_customers")).all()
    for row_id, email in rows:
        new = _moved(email)
        if new:
            bind.execute(
                sa.text("UPDATE verification_customers SET email = :e WHERE id = :i"),
                {"e": new, "i": row_id},
            )


def upgrade() -> None:
    bind = op.get_bind()
    _staff(bind)
    _members(bind)
    _applications(bind)
    _customers(bind)


def downgrade() -> None:
    pass
