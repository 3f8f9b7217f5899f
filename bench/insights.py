"""The insights at 100,000 applications (docs/insights.md "Speed"): server time of
`GET /staff/v1/insights` and of `/dashboard/insights`, p50, p95 and p99, for the default
period and filters and for wider ones, beside a bare reference measured in the same run.

    .venv/bin/python bench/insights.py                       # PostgreSQL, 100,000 applications
    .venv/bin/python bench/insights.py --database sqlite     # the same on SQLite
    .venv/bin/python bench/insights.py --applications 20000 --requests 50

A scratch database (bench/support.py; PostgreSQL beside GATEHOUSE_BENCH_POSTGRES_URL, dropped
after) is migrated and seeded with bench/seed.py's bulk inserts: one tenant with
`--applications` applications, then the shapes the insights count: creation spread over a
year, a status change up to four days after it, two in three submitted, three in four signed
in to the portal (a portal session each), and for each decided application its history (a
proposal and a countersignature by one of five analysts and two mlros, or a rejection); a
sandbox tenant with 2,000 applications the all-tenants figures leave out. The seeding's
inserts fire the daily summary's triggers (docs/insights.md "Speed"); on PostgreSQL the bulk
shaping runs with them off and the summary is then rebuilt by migration 0018's backfill (on
SQLite they fire). Then ANALYZE.

Each case is a request served in this process through the product's own app (every
middleware, the credential check, the queries, the rendering), from its start to the end of
its body, without a network. The bare reference is `GET /staff/v1/tenants/{tenantId}`: the
smallest authenticated staff read, through the same app. Targets: JSON p95 ≤ 300 ms, page p95
≤ 500 ms.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, where bench/queue.py would hide
# the standard library's `queue`: look things up from the repository root instead.
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import importlib  # noqa: E402
import os  # noqa: E402
import secrets  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from datetime import timedelta  # noqa: E402
from urllib.parse import urlencode  # noqa: E402

import httpx  # noqa: E402
from sqlalchemy import text  # noqa: E402

from bench.seed import seed  # noqa: E402
from bench.support import database, percentile  # noqa: E402
from gatehouse.accounts.lifecycle import create_staff_member  # noqa: E402
from gatehouse.accounts.sessions import open_session  # noqa: E402
from gatehouse.app import create_app  # noqa: E402
from gatehouse.audit.context import WriteContext  # noqa: E402
from gatehouse.dashboard.sessions import COOKIE_NAME  # noqa: E402
from gatehouse.runtime import Runtime  # noqa: E402
from gatehouse.settings import Settings  # noqa: E402
from gatehouse.storage.migrate import upgrade  # noqa: E402
from gatehouse.timeutil import utcnow  # noqa: E402

SUMMARY = importlib.import_module("gatehouse.storage.migrations.versions.0018_insights_summary")
SUMMARY_TABLES = ("insights_days", "insights_decision_days", "insights_staff_days")
JSON_TARGET_P95_MS = 300.0
PAGE_TARGET_P95_MS = 500.0
WARM_UP = 5
SANDBOX_APPLICATIONS = 2_000


def _shape_statements(sqlite: bool, tenant_id: str, staff: list[str]) -> list[str]:
    """SQL giving the seeded applications the shapes the insights count, by their rank n."""
    if sqlite:
        created = "datetime('now', '-' || (n % 365) || ' days', '-' || (n % 1440) || ' minutes')"
        changed = "datetime(created_at, '+' || (n % 97) || ' hours')"
        submitted = "datetime(created_at, '+2 hours')"
        before = "datetime(a.status_changed_at, '-1 hours')"
    else:
        created = "now() - (n % 365) * interval '1 day' - (n % 1440) * interval '1 minute'"
        changed = "created_at + (n % 97) * interval '1 hour'"
        submitted = "created_at + interval '2 hours'"
        before = "a.status_changed_at - interval '1 hour'"
    analysts, mlros = staff[:5], staff[5:]

    def chooser(ids: list[str]) -> str:
        if sqlite:
            cases = " ".join(f"WHEN {i} THEN '{s}'" for i, s in enumerate(ids))
            return f"CASE (n % {len(ids)}) {cases} END"
        array = "ARRAY[" + ",".join(f"'{s}'" for s in ids) + "]"
        return f"({array})[1 + n % {len(ids)}]"

    ranked = "(SELECT n FROM ranked r WHERE r.id = applications.id)"
    history = (
        "INSERT INTO decisions (id, application_id, action, from_status, to_status, by_role, "
        "by_staff_id, comment, at) SELECT '{prefix}' || a.id, a.id, '{action}', '{frm}', '{to}', "
        "'{role}', {who}, NULL, {at} FROM applications a JOIN ranked USING (id) "
        "WHERE a.status = '{status}'"
    )
    return [
        "CREATE TEMPORARY TABLE ranked AS SELECT id, row_number() OVER (ORDER BY id) AS n "
        f"FROM applications WHERE tenant_id = '{tenant_id}'",
        "CREATE UNIQUE INDEX ranked_id ON ranked (id)",
        f"UPDATE applications SET created_at = (SELECT {created} FROM ranked r "
        f"WHERE r.id = applications.id) WHERE tenant_id = '{tenant_id}'",
        f"UPDATE applications SET status_changed_at = (SELECT {changed} FROM ranked r "
        f"WHERE r.id = applications.id) WHERE tenant_id = '{tenant_id}'",
        f"UPDATE applications SET submitted_at = {submitted} "
        f"WHERE tenant_id = '{tenant_id}' AND {ranked} % 3 <> 0",
        "INSERT INTO portal_sessions (id, application_id, member_id, token_hash, csrf_token, "
        "created_at, expires_at) SELECT 'pss_' || a.id, a.id, a.owner_uid, 'h' || a.id, 'c', "
        "a.created_at, a.created_at FROM applications a JOIN ranked USING (id) "
        "WHERE n % 4 <> 3",
        "UPDATE applications SET signed_in_at = created_at "
        "WHERE id IN (SELECT id FROM ranked WHERE n % 4 <> 3)",
        history.format(
            prefix="dp_", action="approve", frm="pending", to="pending_approval", role="analyst",
            who=chooser(analysts).replace("n %", "ranked.n %"), at=before, status="active",
        ),
        history.format(
            prefix="dc_", action="approved", frm="pending_approval", to="active", role="mlro",
            who=chooser(mlros).replace("n %", "ranked.n %"), at="a.status_changed_at",
            status="active",
        ),
        history.format(
            prefix="dr_", action="reject", frm="pending", to="rejected", role="analyst",
            who=chooser(analysts).replace("n %", "ranked.n %"), at="a.status_changed_at",
            status="rejected",
        ),
    ]  # fmt: skip


@dataclass
class Prepared:
    tenant_id: str
    label_id: str
    token: str
    cookie: str


async def prepare(settings: Settings, applications: int) -> Prepared:
    seeded = await seed(settings, applications, sample=10)
    play = await seed(settings, SANDBOX_APPLICATIONS, sample=10)
    runtime = Runtime.build(settings)
    try:
        ctx = WriteContext.system("bench", runtime.now())
        staff = []
        for n in range(5):
            made = await create_staff_member(runtime, f"analyst{n}@bench.test", "analyst", ctx)
            staff.append(str(made["staffId"]))
        for n in range(2):
            made = await create_staff_member(runtime, f"mlro{n}@bench.test", "mlro", ctx)
            staff.append(str(made["staffId"]))
        head = await create_staff_member(runtime, "head@bench.test", "mlro", ctx)
        async with runtime.db.write() as session:
            await session.execute(
                text("UPDATE tenants SET environment = 'sandbox' WHERE id = :id"),
                {"id": play.tenant_id},
            )
            opened = await open_session(session, runtime, str(head["staffId"]), ctx, "password")
        async with runtime.db.write() as session:
            if not runtime.db.is_sqlite:
                # Bulk shaping with the summary's triggers off (PostgreSQL: row triggers on
                # 400,000 updated rows take many minutes on a loaded machine), then the
                # summary rebuilt by the migration's own backfill.
                await session.execute(text("SET LOCAL session_replication_role = replica"))
            for statement in _shape_statements(runtime.db.is_sqlite, seeded.tenant_id, staff):
                await session.execute(text(statement))
            if not runtime.db.is_sqlite:
                await session.execute(text("SET LOCAL session_replication_role = origin"))
                for table in SUMMARY_TABLES:
                    await session.execute(text(f"DELETE FROM {table}"))
                for statement in SUMMARY.backfill(SUMMARY.Dialect(postgres=True)):
                    await session.execute(text(statement))
        if runtime.db.is_sqlite:
            async with runtime.db.write() as session:
                await session.execute(text("ANALYZE"))
        else:
            engine = runtime.db.write_engine.execution_options(isolation_level="AUTOCOMMIT")
            async with engine.connect() as connection:
                await connection.execute(text("VACUUM (ANALYZE)"))
    finally:
        await runtime.close()
    return Prepared(seeded.tenant_id, seeded.label_id, str(head["token"]), opened.cookie_value)


def cases(prepared: Prepared) -> dict[str, tuple[str, str]]:
    """name -> (kind, URL)."""
    first_day = (utcnow() - timedelta(days=364)).date()
    year = {"from": f"{first_day.isoformat()}T00:00:00Z"}
    tenant = {"tenantId": prepared.tenant_id}
    intake = {**tenant, "labelId": prepared.label_id}
    page_year = {"from": first_day.isoformat()}
    api, page = "/staff/v1/insights?", "/dashboard/insights?"
    return {
        "bare reference: GET /staff/v1/tenants/{id}": (
            "bare",
            f"/staff/v1/tenants/{prepared.tenant_id}",
        ),
        "JSON, all tenants, last 30 days (default)": ("json", "/staff/v1/insights"),
        "JSON, one tenant, last 30 days": ("json", api + urlencode(tenant)),
        "JSON, one tenant and intake, last 30 days": ("json", api + urlencode(intake)),
        "JSON, all tenants, last year": ("json", api + urlencode(year)),
        "JSON, one tenant, last year": ("json", api + urlencode({**tenant, **year})),
        "page, all tenants, last 30 days (default)": ("page", "/dashboard/insights"),
        "page, one tenant, last year": (
            "page",
            page + urlencode({"tenant": prepared.tenant_id, **page_year}),
        ),
        "CSV, all tenants, last year": ("page", page + urlencode({**page_year, "format": "csv"})),
    }


async def measure(
    settings: Settings, prepared: Prepared, requests: int
) -> list[tuple[str, str, float, float, float]]:
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5))
    results = []
    async with httpx.AsyncClient(
        transport=transport,
        base_url="http://testserver",
        cookies={COOKIE_NAME: prepared.cookie},
        headers={"Authorization": f"Bearer {prepared.token}"},
    ) as client:
        for name, (kind, url) in cases(prepared).items():
            for _ in range(WARM_UP):
                answer = await client.get(url)
                assert answer.status_code == 200, (name, answer.status_code, answer.text[:300])
            if kind == "json":  # what was counted, so the figures are seen to be real
                body = answer.json()
                print(f"#   {name}: funnel {body['funnel']}", file=sys.stderr)
            times = []
            for _ in range(requests):
                started = time.perf_counter()
                answer = await client.get(url)
                times.append((time.perf_counter() - started) * 1000)
                assert answer.status_code == 200
            results.append(
                (
                    name,
                    kind,
                    percentile(times, 0.5),
                    percentile(times, 0.95),
                    percentile(times, 0.99),
                )
            )
    return results


def report(args: argparse.Namespace, results: list[tuple[str, str, float, float, float]]) -> None:
    load = " ".join(Path("/proc/loadavg").read_text(encoding="ascii").split()[:3])
    bare = next(p50 for _n, kind, p50, _p95, _p99 in results if kind == "bare")
    print(
        f"Insights, {args.database}, {args.applications:,} applications "
        f"(+{SANDBOX_APPLICATIONS:,} sandbox), {args.requests} requests per case, "
        f"{os.cpu_count()} CPUs, load average {load}"
    )
    print("| case | p50 ms | p95 ms | p99 ms | p50 / bare | p95 within target |")
    print("|---|---:|---:|---:|---:|---|")
    for name, kind, p50, p95, p99 in results:
        target = {"json": JSON_TARGET_P95_MS, "page": PAGE_TARGET_P95_MS}.get(kind)
        verdict = "—" if target is None else ("yes" if p95 <= target else "**no**")
        ratio = p50 / bare if bare else 0.0
        print(f"| {name} | {p50:.1f} | {p95:.1f} | {p99:.1f} | {ratio:.1f} x | {verdict} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--database", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--applications", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, database(args.database, Path(tmp)) as url:
        print(f"# {args.database}: migrating and seeding {args.applications:,}", file=sys.stderr)
        upgrade(url)
        settings = Settings(
            database_url=url,
            secret_key=secrets.token_urlsafe(32),
            public_url="http://testserver",
            rate_limit_per_ip=10**9,
            rate_limit_per_key=10**9,
        )
        started = time.monotonic()
        prepared = asyncio.run(prepare(settings, args.applications))
        print(f"#   seeded in {time.monotonic() - started:.1f} s", file=sys.stderr)
        results = asyncio.run(measure(settings, prepared, args.requests))
    report(args, results)


if __name__ == "__main__":
    main()
