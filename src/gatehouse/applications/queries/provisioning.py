"""The SQL of provisioning, as Core statements built once (bench/RESULTS.md).

Provisioning is the hottest write of the tenant API. Through the ORM unit of
work it cost eight round trips and most of its CPU in flush bookkeeping; here
each step is a statement compiled once (SQLAlchemy caches it) and run on the
write transaction's connection:

- a new identity: the lookup (identity or its erased pseudonym, locked), the
  intake choice (intakes/service.py), then the application with its owner
  already set, its applicant member and the audit entry. On PostgreSQL those
  three INSERTs are one statement (data-modifying CTEs), on SQLite three.
  These statements run on the transaction's driver connection, compiled once
  (storage/tx_statements.py): SQLAlchemy's per-execution work was most of their
  CPU.
- a repeat: the lookup, the members, latest decision and current request in
  one statement (applications/queries/snapshot.py), the applicant's member
  when it was removed, then the refresh of `updated_at` (and of the owner)
  with the audit entry: one statement on PostgreSQL, two on SQLite.

The rules (what a repeat may change, when to refuse) stay in
applications/service/provisioning.py and domain/.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    and_,
    bindparam,
    cast,
    insert,
    literal,
    null,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncConnection

from gatehouse.applications.queries.snapshot import SUMMARY_COLUMNS
from gatehouse.domain.members import ROLE_APPLICANT
from gatehouse.intakes import CHOICE_ATTACHED, CHOICE_BY_LABEL, choose_among
from gatehouse.storage.tables.applications import Application, Member
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.storage.tx_statements import TxStatement, run_in

# What a repeat needs besides the read's own columns: the roster's owner and the lock flag.
_LOOKUP_COLUMNS = (
    *SUMMARY_COLUMNS,
    Application.identity,
    Application.owner_uid,
    Application.locked,
)


def _finding(pseudonyms: int) -> Any:
    """The condition on an identity or one of its `pseudonyms` erased forms."""
    names = [
        bindparam(f"pseudonym_{n}", type_=Application.identity.type) for n in range(pseudonyms)
    ]
    # The erased pseudonym under each key of the ring (crypto.py), a handful at most.
    matches = Application.identity == bindparam("identity")
    if names:
        matches = or_(matches, Application.identity.in_(names))
    return and_(Application.tenant_id == bindparam("tenant_id"), matches)


def _lookup(pseudonyms: int) -> TxStatement:
    """The lookup of an identity or one of its `pseudonyms` erased forms, row-locked."""
    return TxStatement(
        select(*_LOOKUP_COLUMNS)
        .where(_finding(pseudonyms))
        .with_for_update()  # PostgreSQL; SQLite's BEGIN IMMEDIATE already serializes writers
    )


_LOOKUPS: dict[int, TxStatement] = {}
_CHOICE_BY_LABEL = TxStatement(CHOICE_BY_LABEL)
_CHOICE_ATTACHED = TxStatement(CHOICE_ATTACHED)
_INTAKE_COLUMNS = tuple(CHOICE_ATTACHED.selected_columns)
_IntakeRow = namedtuple("_IntakeRow", list(CHOICE_ATTACHED.selected_columns.keys()))  # type: ignore[misc]


def _lookup_and_choice(pseudonyms: int, named: bool) -> TxStatement:
    """The lookup (unlocked) and the intake choice's rows in one statement.

    UNION ALL of the two, each row padded with typed NULLs to the other's columns and
    told apart by `kind` (0: an application, 1: an intake).
    """
    found = select(
        literal(0).label("kind"),
        *(column.label(f"a_{column.key}") for column in _LOOKUP_COLUMNS),
        *(cast(null(), column.type).label(f"i_{column.key}") for column in _INTAKE_COLUMNS),
    ).where(_finding(pseudonyms))
    choice = CHOICE_BY_LABEL if named else CHOICE_ATTACHED
    intakes = choice.with_only_columns(
        literal(1),
        *(cast(null(), column.type) for column in _LOOKUP_COLUMNS),
        *_INTAKE_COLUMNS,
    )
    return TxStatement(union_all(found, intakes))


_LOOKUPS_AND_CHOICES: dict[tuple[int, bool], TxStatement] = {}


def _bind(column: ColumnElement[Any], prefix: str) -> Any:
    return bindparam(f"{prefix}{column.key}", type_=column.type)


def _audit_from(source: Any) -> Any:
    """INSERT of the audit entry whose target and application are `source.c.id`."""
    table = AuditEntry.__table__
    return insert(AuditEntry).from_select(
        ["id", "at", "actor", "action", "target", "tenant_id", "application_id", "request_id"],
        select(
            _bind(table.c.id, "audit_"),
            _bind(table.c.at, "audit_"),
            _bind(table.c.actor, "audit_"),
            _bind(table.c.action, "audit_"),
            source.c.id,
            _bind(table.c.tenant_id, "audit_"),
            source.c.id,
            _bind(table.c.request_id, "audit_"),
        ),
    )


def _create_statement() -> Any:
    """PostgreSQL: application, applicant member and audit entry in one statement.

    A concurrent first call may commit the identity between the lookup and
    this statement: ON CONFLICT makes the application's INSERT a no-op, so the
    CTE is empty, nothing else is inserted and no row is returned.
    """
    applications = Application.__table__
    members = Member.__table__
    new_application = (
        postgresql.insert(Application)
        .values({column.key: _bind(column, "app_") for column in applications.c})
        .on_conflict_do_nothing(index_elements=["tenant_id", "identity"])
        .returning(Application.id)
        .cte("new_application")
    )
    new_member = (
        insert(Member)
        .from_select(
            ["id", "application_id", "email", "role", "joined_at"],
            select(
                _bind(members.c.id, "member_"),
                new_application.c.id,
                _bind(members.c.email, "member_"),
                literal(ROLE_APPLICANT),
                _bind(members.c.joined_at, "member_"),
            ),
        )
        .cte("new_member")
    )
    return _audit_from(new_application).returning(AuditEntry.id).add_cte(new_member)


def _insert_all(table: Any) -> TxStatement:
    """INSERT of every column of `table`, each value given (None where unset)."""
    return TxStatement(insert(table).values({column.key: _bind(column, "") for column in table.c}))


_CREATE_POSTGRES = TxStatement(_create_statement())
_APPLICATION_COLUMNS = tuple(Application.__table__.c)
_CREATE_APPLICATION = _insert_all(Application.__table__)
_CREATE_MEMBER = _insert_all(Member.__table__)
_CREATE_AUDIT = _insert_all(AuditEntry.__table__)
_INSERT_MEMBER = insert(Member)
_INSERT_AUDIT = insert(AuditEntry)

_TOUCH = (
    update(Application)
    .where(Application.id == bindparam("application_id"))
    .values(updated_at=bindparam("now"))
)
_TOUCH_WITH_OWNER = _TOUCH.values(owner_uid=bindparam("new_owner"))


def _touch_and_audit(touch: Any) -> Any:
    """PostgreSQL: the refresh and its audit entry in one statement."""
    touched = touch.returning(Application.id).cte("touched")
    return _audit_from(touched)


_TOUCH_AND_AUDIT = _touch_and_audit(_TOUCH)
_TOUCH_WITH_OWNER_AND_AUDIT = _touch_and_audit(_TOUCH_WITH_OWNER)


def _every(columns: Sequence[Any], values: dict[str, Any]) -> dict[str, Any]:
    return {column.key: values.get(column.key) for column in columns}


def _prefixed(values: dict[str, Any], prefix: str) -> dict[str, Any]:
    return {prefix + key: value for key, value in values.items()}


async def lock_identity(
    connection: AsyncConnection,
    tenant_id: str,
    identity: str,
    pseudonyms: Sequence[str],
    *,
    alone: bool = False,
) -> Application | None:
    """The application of `identity`, else of its erased pseudonym, row-locked; or None.

    The row comes back as a transient `Application` holding the columns the
    rules and the read need (not attached to any session). `alone`: outside the
    transaction if none is open yet (storage/tx_statements.py), the lock then lasting
    the statement only.
    """
    lookup = _LOOKUPS.get(len(pseudonyms))
    if lookup is None:
        lookup = _LOOKUPS[len(pseudonyms)] = _lookup(len(pseudonyms))
    params = {"tenant_id": tenant_id, "identity": identity}
    for n, pseudonym in enumerate(pseudonyms):
        params[f"pseudonym_{n}"] = pseudonym
    rows = await run_in(connection, lookup, params, alone=alone)
    if not rows:
        return None
    # The identity itself wins over an erased pseudonym (they cannot both exist today).
    row = next((r for r in rows if r.identity == identity), rows[0])
    return Application(**row._asdict())


async def find_with_intakes(
    connection: AsyncConnection,
    tenant_id: str,
    identity: str,
    pseudonyms: Sequence[str],
    label_id: str | None,
) -> tuple[Application | None, list[Any]]:
    """`lock_identity` without the lock, outside the transaction (`alone`), and the rows
    the intake choice reads (`choose_among`), in one round trip.

    For PostgreSQL's new identities, which need no transaction: a row found here is read
    again under its lock, in the transaction, before anything is answered from it.
    """
    key = (len(pseudonyms), label_id is not None)
    statement = _LOOKUPS_AND_CHOICES.get(key)
    if statement is None:
        statement = _LOOKUPS_AND_CHOICES[key] = _lookup_and_choice(*key)
    params = {"tenant_id": tenant_id, "identity": identity, "label_id": label_id}
    for n, pseudonym in enumerate(pseudonyms):
        params[f"pseudonym_{n}"] = pseudonym
    rows = await run_in(connection, statement, params, alone=True)
    width = len(_LOOKUP_COLUMNS)
    found = [row[1 : 1 + width] for row in rows if row[0] == 0]
    intakes = [_IntakeRow._make(row[1 + width :]) for row in rows if row[0] == 1]
    if not found:
        return None, intakes
    keys = [column.key for column in _LOOKUP_COLUMNS]
    values = next((f for f in found if f[keys.index("identity")] == identity), found[0])
    return Application(**dict(zip(keys, values, strict=True))), intakes


async def choose_intake(
    connection: AsyncConnection, tenant_id: str, label_id: str | None, *, alone: bool = False
) -> str:
    """The label id of a new application (intakes/service.py: `choose_among`)."""
    if label_id is not None:
        rows = await run_in(connection, _CHOICE_BY_LABEL, {"label_id": label_id}, alone=alone)
    else:
        rows = await run_in(connection, _CHOICE_ATTACHED, {"tenant_id": tenant_id}, alone=alone)
    return choose_among(rows, tenant_id, label_id)


def member_values(member_id: str, application_id: str, email: str, now: datetime) -> dict[str, Any]:
    return {
        "id": member_id,
        "application_id": application_id,
        "email": email,
        "role": ROLE_APPLICANT,
        "joined_at": now,
    }


async def create(
    connection: AsyncConnection,
    application: dict[str, Any],
    member: dict[str, Any],
    audit: dict[str, Any],
    *,
    sqlite: bool,
    alone: bool = False,
) -> bool:
    """INSERT the application, its applicant member and the audit entry.

    False (and nothing written) when a concurrent call won the identity; on
    SQLite that cannot happen (the write transaction serializes writers). On
    PostgreSQL the three are one statement, which `alone` commits by itself when
    no transaction is open yet.
    """
    if sqlite:
        await run_in(connection, _CREATE_APPLICATION, _every(_APPLICATION_COLUMNS, application))
        await run_in(connection, _CREATE_MEMBER, member)
        await run_in(connection, _CREATE_AUDIT, audit)
        return True
    params = {
        **{f"app_{column.key}": application.get(column.key) for column in _APPLICATION_COLUMNS},
        "member_id": member["id"],
        "member_email": member["email"],
        "member_joined_at": member["joined_at"],
        **_prefixed(audit, "audit_"),
    }
    return bool(await run_in(connection, _CREATE_POSTGRES, params, alone=alone))


async def insert_member(connection: AsyncConnection, values: dict[str, Any]) -> None:
    await connection.execute(_INSERT_MEMBER, values)


async def touch(
    connection: AsyncConnection,
    application_id: str,
    now: datetime,
    owner_uid: str | None,
    audit: dict[str, Any],
    *,
    sqlite: bool,
) -> None:
    """Refresh `updated_at` (docs/reference/tenant-api.md §5.1 rule 2), set the owner when
    given, and audit.
    """
    params: dict[str, Any] = {"application_id": application_id, "now": now}
    if owner_uid is not None:
        params["new_owner"] = owner_uid
    if sqlite:
        await connection.execute(_TOUCH if owner_uid is None else _TOUCH_WITH_OWNER, params)
        await connection.execute(_INSERT_AUDIT, audit)
        return
    statement = _TOUCH_AND_AUDIT if owner_uid is None else _TOUCH_WITH_OWNER_AND_AUDIT
    await connection.execute(statement, {**params, **_prefixed(audit, "audit_")})
