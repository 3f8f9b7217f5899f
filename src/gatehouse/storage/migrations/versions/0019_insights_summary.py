"""the insights' daily summary: three tables kept by triggers, filled from what exists, and
the decided applications indexed by their time to decision

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26 21:00:00

`GET /staff/v1/insights` over a year read every application created in it (docs/insights.md
"Speed"). Three tables now hold, per tenant, intake and UTC day, what the figures add up:

- `insights_days`: the applications created that day, how far each got now (signed in,
  submitted, approved, rejected, open), their effective risk (medium, high) and their current
  screening hits (all, resolved as a match, resolved as no match);
- `insights_decision_days`: the decided ones created that day by the range their time to
  decision falls in (`bucket`, the index in `DECISION_EDGES`);
- `insights_staff_days`: each staff member's proposals, countersignatures and rejections made
  that day.

An index of the decided applications by their time to decision (an expression of
`status_changed_at` and `created_at`) lets a percentile be read exactly within its range.

Triggers on `applications`, `decisions`, `application_risk` and `screening_hits` keep them in
the same transaction as every write, whichever code (or SQL console) makes it: each changed
row takes its old contribution out and puts its new one in. A later migration that rebuilds one
of these tables with `batch_alter_table` on SQLite (which copies the table and drops the old
one, with its triggers) must create the triggers again: `sqlite_triggers()` gives them, and
`tests/insights/test_summary_triggers.py` checks that they exist at the head.
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As this migration wrote them (insights/rules.py DECISION_EDGES says the same; a test
# compares them): the upper bounds, in seconds, of the ranges of the time to decision.
DECISION_EDGES = (
    60, 300, 600, 1800, 3600, 7200, 14400, 28800, 43200, 64800, 86400, 129600, 172800,
    216000, 259200, 345600, 432000, 518400, 604800, 864000, 1209600, 1814400, 2592000,
    5184000, 7776000, 15552000, 31536000,
)  # fmt: skip
DECIDED = "('active', 'rejected')"
STAFF_ACTIONS = {"proposals": "approve", "countersignatures": "approved", "rejections": "reject"}
DAY_COLUMNS = (
    "created", "signed_in", "submitted", "approved", "rejected", "open_count",
    "risk_medium", "risk_high", "hits", "hits_match", "hits_no_match",
)  # fmt: skip
DAY_KEY = ("tenant_id", "label_id", "day")
# The columns of `applications` a change of which moves its contribution.
APPLICATION_COLUMNS = (
    "tenant_id", "label_id", "created_at", "status", "signed_in_at", "submitted_at",
    "erased_at", "status_changed_at",
)  # fmt: skip
TABLES = ("applications", "decisions", "application_risk", "screening_hits")
# The decided applications by their time to decision, for reading a percentile exactly within
# its range (as storage/tables/applications.py TOOK_SQL spells the expression).
TOOK_SQL = {
    "postgresql": "(floor(extract(epoch FROM (status_changed_at AT TIME ZONE 'UTC')))::bigint"
    " - floor(extract(epoch FROM (created_at AT TIME ZONE 'UTC')))::bigint)",
    "sqlite": "(CAST(strftime('%s', status_changed_at) AS INTEGER)"
    " - CAST(strftime('%s', created_at) AS INTEGER))",
}


class Dialect:
    """The few expressions the two databases spell differently."""

    def __init__(self, postgres: bool) -> None:
        self.postgres = postgres

    def day(self, column: str) -> str:
        if self.postgres:
            return f"(({column}) AT TIME ZONE 'UTC')::date"
        return f"date({column})"

    def seconds(self, column: str) -> str:
        if self.postgres:
            return f"floor(extract(epoch FROM {column}))::bigint"
        return f"CAST(strftime('%s', {column}) AS INTEGER)"

    def took(self, row: str) -> str:
        """Whole seconds from an application's creation to its last status change."""
        return f"{self.seconds(row + '.status_changed_at')} - {self.seconds(row + '.created_at')}"


def bucket(took: str) -> str:
    """The index of the range of DECISION_EDGES that holds `took` seconds."""
    cases = " ".join(f"WHEN {took} < {edge} THEN {n}" for n, edge in enumerate(DECISION_EDGES))
    return f"CASE {cases} ELSE {len(DECISION_EDGES)} END"


def _upsert(table: str, key: Sequence[str], values: Sequence[str], select: str) -> str:
    columns = ", ".join((*key, *values))
    added = ", ".join(f"{v} = {table}.{v} + excluded.{v}" for v in values)
    return (
        f"INSERT INTO {table} ({columns}) {select} "
        f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {added}"
    )


def _when(condition: str, sign: str) -> str:
    return f"CASE WHEN {condition} THEN {sign} ELSE 0 END"


def application_statements(d: Dialect, row: str, sign: str) -> list[str]:
    """An application's contribution to the days and the decision days, `sign` 1 or -1."""
    risk = "SELECT count(*) FROM application_risk r WHERE r.application_id = {row}.id AND {cond}"
    hit = "SELECT count(*) FROM screening_hits h WHERE h.application_id = {row}.id AND {cond}"
    current = "h.current = TRUE"
    counted = [
        risk.format(row=row, cond="r.level = 'medium'"),
        risk.format(row=row, cond="r.level = 'high'"),
        hit.format(row=row, cond=current),
        hit.format(row=row, cond=current + " AND h.status = 'match'"),
        hit.format(row=row, cond=current + " AND h.status = 'no_match'"),
    ]
    values = [
        sign,
        _when(f"{row}.signed_in_at IS NOT NULL", sign),
        _when(f"{row}.submitted_at IS NOT NULL", sign),
        _when(f"{row}.status = 'active'", sign),
        _when(f"{row}.status = 'rejected'", sign),
        _when(f"{row}.status NOT IN {DECIDED} AND {row}.erased_at IS NULL", sign),
        *(f"{sign} * ({query})" for query in counted),
    ]
    key = [f"{row}.tenant_id", f"COALESCE({row}.label_id, '')", d.day(f"{row}.created_at")]
    days = _upsert("insights_days", DAY_KEY, DAY_COLUMNS, "SELECT " + ", ".join(key + values))
    decided = _upsert(
        "insights_decision_days",
        (*DAY_KEY, "bucket"),
        ("decided",),
        f"SELECT {', '.join(key)}, {bucket('t.took')}, {sign} "
        f"FROM (SELECT {d.took(row)} AS took) t WHERE {row}.status IN {DECIDED}",
    )
    return [days, decided]


def _staff_values(action: str, sign: str) -> list[str]:
    return [_when(f"{action} = '{name}'", sign) for name in STAFF_ACTIONS.values()]


def _staff_upsert(select: str) -> str:
    return _upsert("insights_staff_days", (*DAY_KEY, "staff_id"), tuple(STAFF_ACTIONS), select)


def application_staff_statement(d: Dialect, row: str, sign: str) -> str:
    """The staff counts of an application's history, under its tenant and intake."""
    counted = ", ".join(f"sum({value})" for value in _staff_values("x.action", sign))
    return _staff_upsert(
        f"SELECT {row}.tenant_id, COALESCE({row}.label_id, ''), {d.day('x.at')}, "
        f"x.by_staff_id, {counted} FROM decisions x WHERE x.application_id = {row}.id "
        f"AND x.action IN {_actions()} AND x.by_staff_id IS NOT NULL "
        f"GROUP BY {d.day('x.at')}, x.by_staff_id"
    )


def _actions() -> str:
    return "(" + ", ".join(f"'{a}'" for a in STAFF_ACTIONS.values()) + ")"


def decision_statements(d: Dialect, row: str, sign: str) -> list[str]:
    counted = ", ".join(_staff_values(f"{row}.action", sign))
    return [
        _staff_upsert(
            f"SELECT a.tenant_id, COALESCE(a.label_id, ''), {d.day(row + '.at')}, "
            f"{row}.by_staff_id, {counted} FROM applications a WHERE a.id = {row}.application_id "
            f"AND {row}.action IN {_actions()} AND {row}.by_staff_id IS NOT NULL"
        )
    ]


def _owner_days(d: Dialect, row: str, values: list[str]) -> str:
    return _upsert(
        "insights_days",
        DAY_KEY,
        DAY_COLUMNS,
        f"SELECT a.tenant_id, COALESCE(a.label_id, ''), {d.day('a.created_at')}, "
        f"{', '.join(values)} FROM applications a WHERE a.id = {row}.application_id",
    )


def risk_statements(d: Dialect, row: str, sign: str) -> list[str]:
    values = ["0"] * 6 + [
        _when(f"{row}.level = 'medium'", sign),
        _when(f"{row}.level = 'high'", sign),
        "0",
        "0",
        "0",
    ]
    return [_owner_days(d, row, values)]


def hit_statements(d: Dialect, row: str, sign: str) -> list[str]:
    current = f"{row}.current = TRUE"
    values = ["0"] * 8 + [
        _when(current, sign),
        _when(f"{current} AND {row}.status = 'match'", sign),
        _when(f"{current} AND {row}.status = 'no_match'", sign),
    ]
    return [_owner_days(d, row, values)]


# table -> (the statements of a row's contribution, the columns whose change moves it)
CONTRIBUTIONS = {
    "applications": (application_statements, APPLICATION_COLUMNS),
    "decisions": (decision_statements, ("application_id", "action", "by_staff_id", "at")),
    "application_risk": (risk_statements, ("application_id", "level")),
    "screening_hits": (hit_statements, ("application_id", "current", "status")),
}


def _changed(columns: Sequence[str], postgres: bool) -> str:
    differ = "IS DISTINCT FROM" if postgres else "IS NOT"
    return " OR ".join(f"OLD.{c} {differ} NEW.{c}" for c in columns)


def _moved(postgres: bool) -> str:
    return _changed(("tenant_id", "label_id"), postgres)


def sqlite_triggers() -> list[str]:
    """Every SQLite trigger of the summary (also to create them again)."""
    d = Dialect(postgres=False)
    made = []
    for table, (statements, columns) in CONTRIBUTIONS.items():
        name = f"insights_{table}"
        out, into = statements(d, "OLD", "-1"), statements(d, "NEW", "1")
        bodies = {
            "insert": ("AFTER INSERT", into),
            "delete": ("AFTER DELETE", out),
            "update": (f"AFTER UPDATE ON {table} FOR EACH ROW WHEN {_changed(columns, False)}",
                       out + into),
        }  # fmt: skip
        for operation, (head, body) in bodies.items():
            if not head.startswith("AFTER UPDATE"):
                head = f"{head} ON {table} FOR EACH ROW"
            made.append(
                f"CREATE TRIGGER IF NOT EXISTS {name}_{operation} {head} "
                f"BEGIN {'; '.join(body)}; END"
            )
    moves = [
        application_staff_statement(d, "OLD", "-1"),
        application_staff_statement(d, "NEW", "1"),
    ]
    made.append(
        "CREATE TRIGGER IF NOT EXISTS insights_applications_move AFTER UPDATE ON applications "
        f"FOR EACH ROW WHEN {_moved(False)} BEGIN {'; '.join(moves)}; END"
    )
    made.append(
        "CREATE TRIGGER IF NOT EXISTS insights_applications_gone AFTER DELETE ON applications "
        f"FOR EACH ROW BEGIN {application_staff_statement(d, 'OLD', '-1')}; END"
    )
    return made


def sqlite_trigger_names() -> list[str]:
    names = [f"insights_{t}_{op}" for t in TABLES for op in ("insert", "delete", "update")]
    return [*names, "insights_applications_move", "insights_applications_gone"]


def postgres_trigger_names() -> list[str]:
    names = [f"insights_{t}_{kind}" for t in TABLES for kind in ("write", "update")]
    return [*names, "insights_applications_move", "insights_applications_gone"]


def _postgres_function(name: str, out: list[str], into: list[str]) -> str:
    return (
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        "BEGIN\n"
        f"  IF TG_OP <> 'INSERT' THEN {'; '.join(out)}; END IF;\n"
        f"  IF TG_OP <> 'DELETE' THEN {'; '.join(into)}; END IF;\n"
        "  RETURN NULL;\n"
        "END\n$$"
    )


def postgres_statements() -> list[str]:
    d = Dialect(postgres=True)
    made = []
    for table, (statements, columns) in CONTRIBUTIONS.items():
        name = f"gatehouse_insights_{table}"
        made.append(_postgres_function(name, statements(d, "OLD", "-1"), statements(d, "NEW", "1")))
        made.append(
            f"CREATE TRIGGER insights_{table}_write AFTER INSERT OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {name}()"
        )
        made.append(
            f"CREATE TRIGGER insights_{table}_update AFTER UPDATE ON {table} FOR EACH ROW "
            f"WHEN ({_changed(columns, True)}) EXECUTE FUNCTION {name}()"
        )
    made.append(
        _postgres_function(
            "gatehouse_insights_applications_move",
            [application_staff_statement(d, "OLD", "-1")],
            [application_staff_statement(d, "NEW", "1")],
        )
    )
    made.append(
        "CREATE TRIGGER insights_applications_move AFTER UPDATE ON applications FOR EACH ROW "
        f"WHEN ({_moved(True)}) EXECUTE FUNCTION gatehouse_insights_applications_move()"
    )
    made.append(
        "CREATE TRIGGER insights_applications_gone AFTER DELETE ON applications FOR EACH ROW "
        "EXECUTE FUNCTION gatehouse_insights_applications_move()"
    )
    return made


def backfill(d: Dialect) -> list[str]:
    """The summary of what exists, in three statements."""
    day = d.day("a.created_at")
    key = f"a.tenant_id, COALESCE(a.label_id, ''), {day}"
    counted = ", ".join(
        [
            "count(*)",
            "sum(CASE WHEN a.signed_in_at IS NOT NULL THEN 1 ELSE 0 END)",
            "sum(CASE WHEN a.submitted_at IS NOT NULL THEN 1 ELSE 0 END)",
            "sum(CASE WHEN a.status = 'active' THEN 1 ELSE 0 END)",
            "sum(CASE WHEN a.status = 'rejected' THEN 1 ELSE 0 END)",
            f"sum(CASE WHEN a.status NOT IN {DECIDED} AND a.erased_at IS NULL THEN 1 ELSE 0 END)",
            "sum(CASE WHEN r.level = 'medium' THEN 1 ELSE 0 END)",
            "sum(CASE WHEN r.level = 'high' THEN 1 ELSE 0 END)",
            "COALESCE(sum(h.hits), 0)",
            "COALESCE(sum(h.matched), 0)",
            "COALESCE(sum(h.unmatched), 0)",
        ]
    )
    hits = (
        "SELECT application_id, "
        "sum(CASE WHEN current = TRUE THEN 1 ELSE 0 END) AS hits, "
        "sum(CASE WHEN current = TRUE AND status = 'match' THEN 1 ELSE 0 END) AS matched, "
        "sum(CASE WHEN current = TRUE AND status = 'no_match' THEN 1 ELSE 0 END) AS unmatched "
        "FROM screening_hits GROUP BY application_id"
    )
    staff = ", ".join(
        f"sum(CASE WHEN x.action = '{a}' THEN 1 ELSE 0 END)" for a in STAFF_ACTIONS.values()
    )
    columns = ", ".join((*DAY_KEY, *DAY_COLUMNS))
    return [
        f"INSERT INTO insights_days ({columns}) SELECT {key}, {counted} FROM applications a "
        "LEFT JOIN application_risk r ON r.application_id = a.id "
        f"LEFT JOIN ({hits}) h ON h.application_id = a.id GROUP BY {key}",
        "INSERT INTO insights_decision_days (tenant_id, label_id, day, bucket, decided) "
        f"SELECT {key}, {bucket('a.took')}, count(*) FROM (SELECT tenant_id, label_id, "
        f"created_at, {d.took('x')} AS took FROM applications x "
        f"WHERE x.status IN {DECIDED}) a GROUP BY {key}, {bucket('a.took')}",
        "INSERT INTO insights_staff_days (tenant_id, label_id, day, staff_id, "
        f"{', '.join(STAFF_ACTIONS)}) SELECT a.tenant_id, COALESCE(a.label_id, ''), "
        f"{d.day('x.at')}, x.by_staff_id, {staff} FROM decisions x "
        "JOIN applications a ON a.id = x.application_id "
        f"WHERE x.action IN {_actions()} AND x.by_staff_id IS NOT NULL "
        f"GROUP BY a.tenant_id, COALESCE(a.label_id, ''), {d.day('x.at')}, x.by_staff_id",
    ]


def _key() -> list[sa.Column[Any]]:
    return [
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("label_id", sa.String(length=40), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
    ]


def _counts(*names: str) -> list[sa.Column[int]]:
    return [sa.Column(name, sa.Integer(), nullable=False) for name in names]


def upgrade() -> None:
    op.create_table(
        "insights_days",
        *_key(),
        *_counts(*DAY_COLUMNS),
        sa.PrimaryKeyConstraint("tenant_id", "label_id", "day"),
    )
    op.create_table(
        "insights_decision_days",
        *_key(),
        sa.Column("bucket", sa.Integer(), autoincrement=False, nullable=False),
        *_counts("decided"),
        sa.PrimaryKeyConstraint("tenant_id", "label_id", "day", "bucket"),
    )
    op.create_table(
        "insights_staff_days",
        *_key(),
        sa.Column("staff_id", sa.String(length=40), nullable=False),
        *_counts(*STAFF_ACTIONS),
        sa.PrimaryKeyConstraint("tenant_id", "label_id", "day", "staff_id"),
    )
    name = op.get_bind().dialect.name
    if name == "sqlite":  # see storage/tables/applications.py
        op.execute(
            f"CREATE INDEX ix_applications_insights_took ON applications ({TOOK_SQL[name]}, "
            f"created_at, tenant_id, label_id, status_changed_at) WHERE status IN {DECIDED}"
        )
    postgres = name == "postgresql"
    for statement in backfill(Dialect(postgres)):
        op.execute(statement)
    for statement in postgres_statements() if postgres else sqlite_triggers():
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"DROP TRIGGER IF EXISTS insights_{table}_write ON {table}")
            op.execute(f"DROP TRIGGER IF EXISTS insights_{table}_update ON {table}")
            op.execute(f"DROP FUNCTION IF EXISTS gatehouse_insights_{table}()")
        op.execute("DROP TRIGGER IF EXISTS insights_applications_move ON applications")
        op.execute("DROP TRIGGER IF EXISTS insights_applications_gone ON applications")
        op.execute("DROP FUNCTION IF EXISTS gatehouse_insights_applications_move()")
    else:
        for name in sqlite_trigger_names():
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.execute("DROP INDEX IF EXISTS ix_applications_insights_took")
    op.drop_table("insights_staff_days")
    op.drop_table("insights_decision_days")
    op.drop_table("insights_days")
