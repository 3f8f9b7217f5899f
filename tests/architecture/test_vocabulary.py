"""The feature vocabulary of docs/architecture.md ("A feature folder"), checked from the source.

- `service.py` (or `service/`) holds use cases: it imports no SQLAlchemy statement builder.
- The SQL of a feature is in its `queries.py` (or `queries/`); the modules of `SQL_ELSEWHERE`
  still hold their own, each for the reason given. The list is exact: a module that starts
  building SQL fails, and so does one listed that no longer does (take it off the list).
- A view builder (a public, plain `def <name>_view`) is in the feature's `schemas.py` (or
  `schemas/`), beside the shape it fills.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.architecture.test_layout import BANDS, PACKAGE, builds_sql, modules, room_of

FEATURES = frozenset(BANDS[2])

# The leased queues and the outbox: their statements are the queue itself (claims with
# named columns, batched outcomes, leases), kept beside the loop that runs them.
QUEUES = {
    "webhooks/outbox.py",
    "webhooks/delivery/claims.py",
    "webhooks/delivery/fair.py",
    "webhooks/delivery/recorder.py",
    "webhooks/delivery/turnover.py",
    "verification/delivery.py",
    "screening/jobs.py",
    "screening/worker.py",
}
# A document store keeps its objects in the database (one of the three stores).
STORES = {"documents/stores/database.py"}
# A page of GET /v1/applications is a prepared statement compiled once per combination of
# filters, built where it is run (docs/architecture.md, "Known debts").
PREPARED = {"applications/service/listing.py"}
# Debt: modules of a role split by meaning that still build their own statements; each
# moves its SQL into the feature's queries module in time.
NOT_YET_MOVED = {
    "accounts/branding.py",
    "accounts/identity.py",
    "accounts/lifecycle.py",
    "accounts/oidc.py",
    "accounts/passkeys.py",
    "accounts/sessions.py",
    "accounts/sign_in.py",
    "accounts/tokens.py",
    "applicants/sessions.py",
    "cases/assignment.py",
    "cases/audit.py",
    "cases/case_file.py",
    "cases/evidence.py",
    "cases/notes.py",
    "cases/queue.py",
    "cases/queue_states.py",
    "documents/custody.py",
    "documents/review.py",
    "erasure/events.py",
    "erasure/replays.py",
    "verification/clients.py",
    "verification/customers.py",
    "verification/erasure.py",
    "verification/links.py",
    "verification/sandbox.py",
    "verification/sweep.py",
    "webhooks/deliveries.py",
}
SQL_ELSEWHERE = QUEUES | STORES | PREPARED | NOT_YET_MOVED


def _role(path: Path) -> str:
    """`queries`, `service`, `schemas` or another role: the file's name, or its package's."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[1] if len(parts) > 1 else parts[0]


def feature_modules() -> list[Path]:
    return [path for path in modules() if room_of(path) in FEATURES]


def view_builders(source: str) -> list[str]:
    """The public, plain (not async) top-level functions of `source` named `*_view`."""
    return [
        node.name
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef)
        and node.name.endswith("_view")
        and not node.name.startswith("_")
    ]


def _label(path: Path) -> str:
    return str(path.relative_to(PACKAGE))


def test_services_build_no_sql() -> None:
    building = [
        _label(path)
        for path in feature_modules()
        if _role(path) == "service"
        and _label(path) not in PREPARED
        and builds_sql(path.read_text())
    ]
    assert building == [], "move the statements into the feature's queries.py: " + str(building)


def test_sql_lives_in_queries() -> None:
    building = {
        _label(path)
        for path in feature_modules()
        if _role(path) != "queries" and builds_sql(path.read_text())
    }
    new = sorted(building - SQL_ELSEWHERE)
    assert new == [], f"these build SQL outside the feature's queries module: {new}"
    stale = sorted(SQL_ELSEWHERE - building)
    assert stale == [], f"these no longer build SQL: take them off SQL_ELSEWHERE: {stale}"


def test_view_builders_live_in_schemas() -> None:
    strays = [
        f"{_label(path)}: {name}"
        for path in feature_modules()
        if _role(path) != "schemas"
        for name in view_builders(path.read_text())
    ]
    assert strays == [], "move these beside their shapes, into schemas.py: " + str(strays)


def test_the_checker_reads_roles_and_builders() -> None:
    assert _role(PACKAGE / "cases" / "queries.py") == "queries"
    assert _role(PACKAGE / "applications" / "queries" / "rows.py") == "queries"
    assert _role(PACKAGE / "applications" / "service" / "listing.py") == "service"
    assert _role(PACKAGE / "webhooks" / "delivery" / "claims.py") == "delivery"
    source = (
        "def member_view(m): ...\n"
        "async def load_application_view(s, a): ...\n"
        "def _view(n): ...\n"
        "class X:\n    def note_view(self): ...\n"
    )
    assert view_builders(source) == ["member_view"]
