"""The staff queue at 100,000 applications (docs/workstation.md "Speed"): server time of the
dashboard's queue page, p50 and p99, for several searches, filters and sorts.

    .venv/bin/python bench/queue.py                       # PostgreSQL, 100,000 applications
    .venv/bin/python bench/queue.py --database sqlite     # the same on SQLite
    .venv/bin/python bench/queue.py --applications 20000 --requests 50

A scratch database (PostgreSQL: created beside GATEHOUSE_BENCH_POSTGRES_URL by
bench/support.py, as for bench/run.py, and dropped after) is migrated and seeded with
bench/seed.py's bulk inserts: one tenant with `--applications` applications (a quarter not
pending), then the workstation's own spread: every 9th application waiting on the applicant,
every 50th pending approval, every 20th assigned to one of five analysts (the viewer among
them), external refs on every other one, creation times spread over a year, and a sandbox
tenant with 2,000 applications the default queue leaves out. Then ANALYZE, as autovacuum would.

Each case is `GET /dashboard?…` served in this process through the product's own app (every
middleware, the session check, the query, the page's rendering), signed in with a real
dashboard session; the time is from the request's start to the end of its body, without a
network. `--requests` runs per case after 5 warm-up requests. Target: p50 at most 50 ms.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, where this module's name would
# hide the standard library's `queue`: look things up from the repository root instead.
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import os  # noqa: E402
import secrets  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
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

TARGET_P50_MS = 50.0
WARM_UP = 5
SANDBOX_APPLICATIONS = 2_000


async def spread(runtime: Runtime, tenant_id: str, staff_ids: list[str]) -> None:
    """Give the seeded applications the shapes the queue filters on, by their rank `n`."""
    # Staff and tenant ids are generated (lowercase letters, digits, `_`): safe in SQL text.
    if runtime.db.is_sqlite:
        n = "(SELECT n FROM ranked r WHERE r.id = applications.id)"
        assignee = (
            "CASE ("
            + n
            + " / 20) % 5 "
            + " ".join(f"WHEN {i} THEN '{staff}'" for i, staff in enumerate(staff_ids))
            + " END"
        )
        ref = f"'REF-' || CAST({n} AS TEXT)"
        created = f"datetime(updated_at, '-' || ({n} % 365) || ' days')"
        changed = f"datetime(updated_at, '-' || ({n} % 40) || ' hours')"
    else:
        n = "(SELECT n FROM ranked r WHERE r.id = applications.id)"
        array = "ARRAY[" + ",".join(f"'{staff}'" for staff in staff_ids) + "]"
        assignee = f"({array})[1 + ({n} / 20) % 5]"
        ref = f"'REF-' || {n}::text"
        created = f"updated_at - ({n} % 365) * interval '1 day'"
        changed = f"updated_at - ({n} % 40) * interval '1 hour'"
    statements = [
        "CREATE TEMPORARY TABLE ranked AS SELECT id, row_number() OVER (ORDER BY id) AS n "
        f"FROM applications WHERE tenant_id = '{tenant_id}'",
        "CREATE UNIQUE INDEX ranked_id ON ranked (id)",
        "UPDATE applications SET status = 'needs_info' "
        "WHERE id IN (SELECT id FROM ranked WHERE n % 9 = 0)",
        "UPDATE applications SET status = 'pending_approval' "
        "WHERE id IN (SELECT id FROM ranked WHERE n % 50 = 1)",
        f"UPDATE applications SET external_ref = {ref} "
        "WHERE id IN (SELECT id FROM ranked WHERE n % 2 = 0)",
        f"UPDATE applications SET assigned_to = {assignee} "
        "WHERE id IN (SELECT id FROM ranked WHERE n % 20 = 0)",
        # Creation over a year; the current state began up to 40 hours before the last update.
        f"UPDATE applications SET created_at = {created}, status_changed_at = {changed} "
        f"WHERE tenant_id = '{tenant_id}'",
    ]
    async with runtime.db.write() as session:
        for statement in statements:
            await session.execute(text(statement))
    if runtime.db.is_sqlite:
        async with runtime.db.write() as session:
            await session.execute(text("ANALYZE"))
    else:
        engine = runtime.db.write_engine.execution_options(isolation_level="AUTOCOMMIT")
        async with engine.connect() as connection:
            await connection.execute(text("VACUUM (ANALYZE) applications"))


async def prepare(settings: Settings, applications: int) -> tuple[dict[str, str], str]:
    """Seed; returns the queue cases (name → query string) and a session cookie."""
    seeded = await seed(settings, applications, sample=100)
    play = await seed(settings, SANDBOX_APPLICATIONS, sample=10)
    runtime = Runtime.build(settings)
    try:
        ctx = WriteContext.system("bench", runtime.now())
        staff_ids = []
        for n in range(5):
            made = await create_staff_member(runtime, f"analyst{n}@bench.test", "analyst", ctx)
            staff_ids.append(str(made["staffId"]))
        async with runtime.db.write() as session:
            await session.execute(
                text("UPDATE tenants SET environment = 'sandbox' WHERE id = :id"),
                {"id": play.tenant_id},
            )
            opened = await open_session(session, runtime, staff_ids[0], ctx, "password")
        await spread(runtime, seeded.tenant_id, staff_ids)
    finally:
        await runtime.close()
    sample = seeded.sample_ids[len(seeded.sample_ids) // 2]
    cases = {
        "default (recently updated)": {},
        "oldest first": {"sort": "oldest"},
        "newest first": {"sort": "newest"},
        "status needs_info": {"status": "needs_info"},
        "status pending_approval, oldest first": {"status": "pending_approval", "sort": "oldest"},
        "waiting on staff": {"waiting": "staff"},
        "waiting on the applicant, oldest first": {"waiting": "applicant", "sort": "oldest"},
        "assigned to me": {"assignee": "me"},
        "unassigned, oldest first": {"assignee": "none", "sort": "oldest"},
        "intake": {"intake": seeded.label_id},
        "tenant and status hold": {"tenant": seeded.tenant_id, "status": "hold"},
        "with sandbox tenants": {"sandbox": "1"},
        "search company (few rows)": {"q": "company 4242"},
        "search email prefix (about 1,100 rows)": {"q": "seed12"},
        "search external ref": {"q": "ref-5000"},
        "search client id": {"q": sample},
        "search matching every row": {"q": "bench.test"},
        "search nothing matches": {"q": "no such company"},
        "search + waiting on staff + oldest": {"q": "seed1", "waiting": "staff", "sort": "oldest"},
    }
    return {name: urlencode(query) for name, query in cases.items()}, opened.cookie_value


async def measure(
    settings: Settings, cases: dict[str, str], cookie: str, requests: int
) -> list[tuple[str, float, float, int]]:
    app = create_app(settings)
    results = []
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5))
    async with httpx.AsyncClient(
        transport=transport, base_url="http://testserver", cookies={COOKIE_NAME: cookie}
    ) as client:
        for name, query in cases.items():
            url = "/dashboard" + (f"?{query}" if query else "")
            first = await client.get(url)
            assert first.status_code == 200, (name, first.status_code, first.text[:300])
            rows = first.text.count('<a href="/dashboard/applications/')
            for _ in range(WARM_UP - 1):
                await client.get(url)
            times = []
            for _ in range(requests):
                started = time.perf_counter()
                answer = await client.get(url)
                times.append((time.perf_counter() - started) * 1000)
                assert answer.status_code == 200
            results.append((name, percentile(times, 0.5), percentile(times, 0.99), rows))
            # The next page, through the cursor of the first.
            marker = 'rel="next"'
            if marker in first.text:
                href = first.text.split(marker)[0].rsplit('href="', 1)[1].split('"')[0]
                next_url = href.replace("&amp;", "&")
                times = []
                for _ in range(requests):
                    started = time.perf_counter()
                    answer = await client.get(next_url)
                    times.append((time.perf_counter() - started) * 1000)
                    assert answer.status_code == 200
                results.append(
                    ("  page 2 of it", percentile(times, 0.5), percentile(times, 0.99), rows)
                )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--applications", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=100)
    args = parser.parse_args()
    secret_key = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory() as tmp, database(args.database, Path(tmp)) as url:
        print(f"# {args.database}: migrating and seeding {args.applications:,}", file=sys.stderr)
        upgrade(url)
        settings = Settings(
            database_url=url,
            secret_key=secret_key,
            public_url="http://testserver",
            rate_limit_per_ip=10**9,
            rate_limit_per_key=10**9,
        )
        started = time.monotonic()
        cases, cookie = asyncio.run(prepare(settings, args.applications))
        print(f"#   seeded in {time.monotonic() - started:.1f} s", file=sys.stderr)
        results = asyncio.run(measure(settings, cases, cookie, args.requests))
    print(
        f"Queue page (GET /dashboard), {args.database}, {args.applications:,} applications "
        f"(+{SANDBOX_APPLICATIONS:,} sandbox), {args.requests} requests per case, "
        f"{os.cpu_count()} CPUs"
    )
    print(f"| case | rows | p50 ms | p99 ms | p50 ≤ {TARGET_P50_MS:.0f} ms |")
    print("|---|---:|---:|---:|---|")
    for name, p50, p99, rows in results:
        verdict = "yes" if p50 <= TARGET_P50_MS else "**no**"
        print(f"| {name} | {rows} | {p50:.1f} | {p99:.1f} | {verdict} |")
    worst = max(p50 for _, p50, _, _ in results)
    print(
        f"\nworst p50: {worst:.1f} ms; median of the p50s: "
        f"{statistics.median(p50 for _, p50, _, _ in results):.1f} ms"
    )


if __name__ == "__main__":
    main()
