"""The provisioning store: every statement of POST /v1/applications (bench/RESULTS.md).

`NewApplication` is what a new identity inserts, built once: the application's row,
its applicant member's row and the audit entry's. `ProvisioningStore` runs the
statements of one identity in one write transaction (a `Tx`, storage/tx_statements.py),
each compiled once and run on the transaction's driver connection:

- `find`: the identity (or its erased pseudonym) and, when there is none, the rows the
  intake choice reads. One statement (UNION ALL) on SQLite, whose write transaction
  (BEGIN IMMEDIATE) already serializes writers, and on PostgreSQL outside the lock;
  under PostgreSQL's row lock the locked lookup, then the choice rows. Found under the
  lock, the application comes with its members, latest decision and current request
  (applications/queries/snapshot.py).
- `create`: the application with its owner already set, its applicant member and the
  audit entry; one statement on PostgreSQL (data-modifying CTEs, a no-op when a
  concurrent call won the identity), three on SQLite.
- `touch`: a repeat's member when the applicant's was removed, the refresh of
  `updated_at` (and of the owner) and the audit entry; on PostgreSQL the last two are one
  statement.

The rules (which intake, what a repeat may change, when to refuse) stay in
applications/service/provisioning.py and domain/.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass
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

from gatehouse.applications.queries.snapshot import (
    SUMMARY_COLUMNS,
    Attachments,
    MemberRow,
    load_attachments_on,
)
from gatehouse.audit.context import WriteContext
from gatehouse.domain.identity import Applicant
from gatehouse.domain.members import ROLE_APPLICANT
from gatehouse.domain.status import ApplicationStatus
from gatehouse.ids import new_id
from gatehouse.intakes.service import CHOICE_ATTACHED, CHOICE_BY_LABEL
from gatehouse.storage.tables.applications import Application, Member
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.storage.tx_statements import Tx, TxStatement

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
_CHOICES = {True: TxStatement(CHOICE_BY_LABEL), False: TxStatement(CHOICE_ATTACHED)}
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


def _touch(with_owner: bool) -> Any:
    touch = (
        update(Application)
        .where(Application.id == bindparam("application_id"))
        .values(updated_at=bindparam("now", type_=Application.updated_at.type))
    )
    if with_owner:
        touch = touch.values(owner_uid=bindparam("new_owner", type_=Application.owner_uid.type))
    return touch


def _touch_and_audit(with_owner: bool) -> TxStatement:
    """PostgreSQL: the refresh and its audit entry in one statement."""
    touched = _touch(with_owner).returning(Application.id).cte("touched")
    return TxStatement(_audit_from(touched))


# (SQLite's statement, PostgreSQL's) by whether the owner changes too.
_TOUCHES = {
    with_owner: (TxStatement(_touch(with_owner)), _touch_and_audit(with_owner))
    for with_owner in (False, True)
}


def _prefixed(values: dict[str, Any], prefix: str) -> dict[str, Any]:
    return {prefix + key: value for key, value in values.items()}


def member_row(member_id: str, application_id: str, email: str, now: datetime) -> dict[str, Any]:
    """The row of an applicant member joining now."""
    return {
        "id": member_id,
        "application_id": application_id,
        "email": email,
        "role": ROLE_APPLICANT,
        "joined_at": now,
    }


@dataclass(frozen=True, slots=True)
class NewApplication:
    """What provisioning a new identity inserts, built once: the application's row (every
    column), its applicant member's row (the owner) and the audit entry's."""

    row: dict[str, Any]
    member: dict[str, Any]
    audit: dict[str, Any]

    @classmethod
    def build(
        cls, ctx: WriteContext, tenant_id: str, applicant: Applicant, label_id: str
    ) -> NewApplication:
        application_id, member_id = new_id("app"), new_id("mem")
        row: dict[str, Any] = dict.fromkeys(column.key for column in _APPLICATION_COLUMNS)
        row.update(
            id=application_id,
            tenant_id=tenant_id,
            identity=applicant.identity,
            external_ref=applicant.external_ref,
            applicant_email=applicant.email,
            company_name=applicant.company_name,
            label_id=label_id,
            status=ApplicationStatus.PENDING,
            owner_uid=member_id,
            locked=False,
            form_data={},
            event_sequence=0,
            request_sequence=0,
            created_at=ctx.now,
            updated_at=ctx.now,
            status_changed_at=ctx.now,
        )
        member = member_row(member_id, application_id, applicant.email or "", ctx.now)
        audit = ctx.audit_values("application.create", application_id, application_id)
        return cls(row, member, audit)

    def application(self) -> Application:
        """The application as it was inserted (not attached to any session)."""
        return Application(**self.row)

    def applicant_member(self) -> MemberRow:
        member = self.member
        return MemberRow(member["id"], member["email"], member["role"], member["joined_at"])


@dataclass(frozen=True, slots=True)
class Found:
    """What `find` saw of an identity: its application (with what hangs off it when found
    under the lock), or the rows the intake choice reads (`intakes/service.py`,
    `choose_among`) when there is none."""

    application: Application | None
    attachments: Attachments | None
    intakes: Sequence[Any]


class ProvisioningStore:
    """The statements of provisioning one identity, in one write transaction."""

    def __init__(self, tx: Tx, tenant_id: str, identity: str, pseudonyms: Sequence[str]) -> None:
        self.tx = tx
        self.sqlite = tx.is_sqlite
        self._identity = identity
        self._params: dict[str, Any] = {"tenant_id": tenant_id, "identity": identity}
        for n, pseudonym in enumerate(pseudonyms):
            self._params[f"pseudonym_{n}"] = pseudonym
        self._pseudonyms = len(pseudonyms)

    async def find(self, label_id: str | None, *, locked: bool) -> Found:
        """The identity's application, else the intake choice's rows.

        Not `locked` (PostgreSQL): outside the transaction while none is open yet
        (`alone`), so a row found this way must be found again under the lock before
        anything is answered from it. On SQLite the write transaction holds the lock.
        """
        if self.sqlite or not locked:
            application, intakes = await self._look_and_choose(label_id, alone=not locked)
        else:
            application, intakes = await self._lock(), []
            if application is None:
                intakes = await self.tx.run(_CHOICES[label_id is not None], self._choice(label_id))
        if application is None or not locked:
            return Found(application, None, intakes)
        return Found(application, await load_attachments_on(self.tx, application.id), [])

    def _choice(self, label_id: str | None) -> dict[str, Any]:
        if label_id is None:
            return {"tenant_id": self._params["tenant_id"]}
        return {"label_id": label_id}

    def _found(self, rows: Sequence[Sequence[Any]]) -> Application | None:
        """The identity itself wins over an erased pseudonym (they cannot both exist today)."""
        if not rows:
            return None
        keys = [column.key for column in _LOOKUP_COLUMNS]
        at = keys.index("identity")
        values = next((row for row in rows if row[at] == self._identity), rows[0])
        return Application(**dict(zip(keys, values, strict=True)))

    async def _lock(self) -> Application | None:
        """The lookup, row-locked (PostgreSQL; SQLite's BEGIN IMMEDIATE already serializes)."""
        lookup = _LOOKUPS.get(self._pseudonyms)
        if lookup is None:
            lookup = _LOOKUPS[self._pseudonyms] = _lookup(self._pseudonyms)
        return self._found(await self.tx.run(lookup, self._params))

    async def _look_and_choose(
        self, label_id: str | None, *, alone: bool
    ) -> tuple[Application | None, list[Any]]:
        """The lookup without the lock and the intake choice's rows, in one round trip."""
        key = (self._pseudonyms, label_id is not None)
        statement = _LOOKUPS_AND_CHOICES.get(key)
        if statement is None:
            statement = _LOOKUPS_AND_CHOICES[key] = _lookup_and_choice(*key)
        params = {**self._params, "label_id": label_id}
        rows = await self.tx.run(statement, params, alone=alone)
        width = len(_LOOKUP_COLUMNS)
        found = [row[1 : 1 + width] for row in rows if row[0] == 0]
        intakes = [_IntakeRow._make(row[1 + width :]) for row in rows if row[0] == 1]
        return self._found(found), intakes

    async def create(self, new: NewApplication, *, alone: bool = False) -> bool:
        """INSERT the application, its applicant member and the audit entry.

        False (and nothing written) when a concurrent call won the identity; on SQLite
        that cannot happen (the write transaction serializes writers). On PostgreSQL the
        three are one statement, which `alone` commits by itself when no transaction is
        open yet.
        """
        if self.sqlite:
            await self.tx.run(_CREATE_APPLICATION, new.row)
            await self.tx.run(_CREATE_MEMBER, new.member)
            await self.tx.run(_CREATE_AUDIT, new.audit)
            return True
        params = {
            **_prefixed(new.row, "app_"),
            **_prefixed(new.member, "member_"),
            **_prefixed(new.audit, "audit_"),
        }
        return bool(await self.tx.run(_CREATE_POSTGRES, params, alone=alone))

    async def touch(
        self,
        ctx: WriteContext,
        application_id: str,
        *,
        joined: MemberRow | None = None,
        owner_uid: str | None = None,
    ) -> None:
        """A repeat's writes: the applicant's member when it `joined` again, the refresh of
        `updated_at` (docs/reference/tenant-api.md §5.1 rule 2), the owner when given, and
        the audit entry (`application.provision`)."""
        if joined is not None:
            member = member_row(joined.id, application_id, joined.email, joined.joined_at)
            await self.tx.run(_CREATE_MEMBER, member)
        params: dict[str, Any] = {"application_id": application_id, "now": ctx.now}
        if owner_uid is not None:
            params["new_owner"] = owner_uid
        audit = ctx.audit_values("application.provision", application_id, application_id)
        sqlite_touch, postgres_touch = _TOUCHES[owner_uid is not None]
        if self.sqlite:
            await self.tx.run(sqlite_touch, params)
            await self.tx.run(_CREATE_AUDIT, audit)
            return
        await self.tx.run(postgres_touch, {**params, **_prefixed(audit, "audit_")})
