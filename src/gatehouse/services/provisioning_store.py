"""The SQL of provisioning, as Core statements built once (issue 8).

Provisioning is the hottest write of the tenant API. Through the ORM unit of
work it cost eight round trips and most of its CPU in flush bookkeeping; here
each step is one prepared statement on the write transaction's connection,
compiled once and cached by SQLAlchemy:

- a new identity: lookup (identity or its erased pseudonym, locked), intake
  choice, INSERT of the application with its owner already set, INSERT of the
  applicant member, INSERT of the audit entry;
- a repeat: the same lookup, the application's members, latest decision and
  current request in one statement (services/application_snapshot.py), an
  UPDATE of `updated_at` (and of the owner when the applicant comes back), the
  audit entry.

The rules (what a repeat may change, when to refuse) stay in
services/provisioning.py and domain/.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, or_, select, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncConnection

from gatehouse.domain.members import ROLE_APPLICANT
from gatehouse.services.application_snapshot import SUMMARY_COLUMNS
from gatehouse.storage.tables.applications import Application, Member

# What a repeat needs besides the read's own columns: the roster's owner and the lock flag.
_LOOKUP = (
    select(*SUMMARY_COLUMNS, Application.identity, Application.owner_uid, Application.locked)
    .where(
        Application.tenant_id == bindparam("tenant_id"),
        or_(
            Application.identity == bindparam("identity"),
            Application.identity == bindparam("pseudonym"),
        ),
    )
    .with_for_update()  # PostgreSQL; SQLite's BEGIN IMMEDIATE already serializes writers
)

_INSERT_APPLICATION_SQLITE = insert(Application)
# A concurrent first call may commit the identity between the lookup and this
# INSERT: the unique constraint then makes it a no-op and the caller re-reads.
_INSERT_APPLICATION_POSTGRES = (
    postgresql.insert(Application)
    .on_conflict_do_nothing(index_elements=["tenant_id", "identity"])
    .returning(Application.id)
)
_INSERT_MEMBER = insert(Member)
_TOUCH = (
    update(Application)
    .where(Application.id == bindparam("application_id"))
    .values(updated_at=bindparam("now"))
)
_TOUCH_WITH_OWNER = _TOUCH.values(owner_uid=bindparam("new_owner"))


async def lock_identity(
    connection: AsyncConnection, tenant_id: str, identity: str, pseudonym: str
) -> Application | None:
    """The application of `identity`, else of its erased pseudonym, row-locked; or None.

    The row comes back as a transient `Application` holding the columns the
    rules and the read need (not attached to any session).
    """
    result = await connection.execute(
        _LOOKUP, {"tenant_id": tenant_id, "identity": identity, "pseudonym": pseudonym}
    )
    rows = result.all()
    if not rows:
        return None
    # The identity itself wins over an erased pseudonym (they cannot both exist today).
    row = next((r for r in rows if r.identity == identity), rows[0])
    return Application(**row._asdict())


async def insert_application(
    connection: AsyncConnection, values: dict[str, Any], *, sqlite: bool
) -> bool:
    """INSERT the new application; False when a concurrent call won the identity."""
    if sqlite:
        await connection.execute(_INSERT_APPLICATION_SQLITE, values)
        return True
    inserted = (await connection.execute(_INSERT_APPLICATION_POSTGRES, values)).first()
    return inserted is not None


async def insert_member(
    connection: AsyncConnection, member_id: str, application_id: str, email: str, now: datetime
) -> Member:
    """INSERT the applicant's member row; returns it as a transient `Member`."""
    values = {
        "id": member_id,
        "application_id": application_id,
        "email": email,
        "role": ROLE_APPLICANT,
        "joined_at": now,
    }
    await connection.execute(_INSERT_MEMBER, values)
    return Member(**values)


async def touch(
    connection: AsyncConnection, application_id: str, now: datetime, owner_uid: str | None
) -> None:
    """Refresh `updated_at` (spec 1 §4.1 rule 2), and set the owner when given."""
    if owner_uid is None:
        await connection.execute(_TOUCH, {"application_id": application_id, "now": now})
    else:
        await connection.execute(
            _TOUCH_WITH_OWNER,
            {"application_id": application_id, "now": now, "new_owner": owner_uid},
        )
