"""The daily summary (docs/insights.md "Speed") stays exact through every write that changes
what it counts: creation, portal sign-in, submission, decisions, intake change, repair, staff
erasure, the retention sweep, risk overrides, screening hits and their resolution, and plain
SQL. After each step the summary tables equal a rebuild from the rows, and the figures equal a
computation in Python over the rows, for whole days, for moments within a day and for a
default period with both; on SQLite and PostgreSQL."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text, update

from gatehouse.insights import Filters, compute_insights, insights_view
from gatehouse.insights.rules import DECISION_EDGES, DURATION_BUCKETS, split
from gatehouse.retention import run_retention_sweep
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application
from tests.insights.conftest import History, decide, through_portal
from tests.insights.reference import expected, read_rows, rebuilt, stored
from tests.screening.conftest import analyst, applicant, intake_id, listed, mlro  # noqa: F401
from tests.screening.support import run_jobs
from tests.support.factories import StaffFixture

MIGRATION = importlib.import_module("gatehouse.storage.migrations.versions.0019_insights_summary")


def views(history: History | None, tenant_id: str, now: datetime) -> list[Filters]:
    """Whole days, moments within today, the default 30 days (fringes at both ends), for the
    tenant, its intakes and all tenants."""
    today = datetime.combine(now.date(), datetime.min.time(), tzinfo=UTC)
    periods = [
        (today - timedelta(days=5), today + timedelta(days=1)),
        (today - timedelta(days=3), today),
        (now - timedelta(hours=1), now + timedelta(minutes=1)),
        (now - timedelta(days=30), now + timedelta(seconds=1)),
        (now - timedelta(days=2, hours=5), now + timedelta(seconds=1)),
    ]
    scopes: list[tuple[str | None, str | None]] = [(None, None), (tenant_id, None)]
    if history is not None:
        scopes += [(tenant_id, history.intake_a), (tenant_id, history.intake_b)]
        scopes.append((history.other.tenant_id, None))
    return [Filters(a, b, t, label) for a, b in periods for t, label in scopes]


async def assert_exact(runtime: Runtime, filters_list: list[Filters]) -> None:
    rows = await read_rows(runtime)
    assert await stored(runtime) == rebuilt(rows)
    now = runtime.now()
    for filters in filters_list:
        async with runtime.db.read() as session:
            found = await compute_insights(session, filters, now)
        view: dict[str, Any] = dict(insights_view(found))
        del view["from"], view["to"]
        want = expected(rows, filters, now)
        distribution = {k: v for k, v in found.durations.distribution.items() if v}
        assert distribution == want.pop("distribution"), filters
        assert view == want, filters


async def test_every_write_path_keeps_the_summary_exact(
    client: httpx.AsyncClient, runtime: Runtime, history: History
) -> None:
    tenant, admin, mlro_ = history.tenant, history.admin, history.mlro
    wanted = views(history, tenant.tenant_id, runtime.now())
    await assert_exact(runtime, wanted)  # creation, sign-in, submission, decisions, backdating

    # Intake change: a proposal's staff count moves to the new intake with its application.
    moved = await through_portal(client, tenant, history.intake_a, "m@example.test", True)
    await decide(client, history.analyst, moved, "approve")
    await assert_exact(runtime, wanted)
    changed = await client.post(
        f"/staff/v1/applications/{moved}/intake",
        json={"labelId": history.intake_b},
        headers=mlro_.headers,
    )
    assert changed.status_code == 200, changed.text
    await assert_exact(runtime, wanted)

    # Repair of a status a plain SQL write broke (the triggers see that write too).
    broken = history.cases["b_plain"]
    async with runtime.db.write() as session:
        await session.execute(
            update(Application).where(Application.id == broken).values(status="needs_info")
        )
    await assert_exact(runtime, wanted)
    repaired = await client.post(f"/staff/v1/applications/{broken}/repair", headers=admin.headers)
    assert repaired.json()["changed"] is True, repaired.text
    await assert_exact(runtime, wanted)

    # Staff erasure: still counted where it came in, no longer open.
    erased = await client.post(
        f"/staff/v1/applications/{history.cases['a_signed_in']}/erase", headers=admin.headers
    )
    assert erased.status_code == 200, erased.text
    await assert_exact(runtime, wanted)

    # The retention sweep erases an application abandoned for longer than the setting.
    patched = await client.patch(
        f"/staff/v1/tenants/{tenant.tenant_id}",
        json={"retention": {"abandonedDays": 1}},
        headers=admin.headers,
    )
    assert patched.status_code == 200, patched.text
    async with runtime.db.write() as session:
        await session.execute(
            update(Application)
            .where(Application.id == history.cases["a_plain"])
            .values(updated_at=runtime.now() - timedelta(days=3))
        )
    assert await run_retention_sweep(runtime) >= 1
    await assert_exact(runtime, wanted)


async def test_risk_and_screening_hits_keep_the_summary_exact(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,  # noqa: F811
    applicant: Any,  # noqa: F811
    analyst: StaffFixture,  # noqa: F811
    mlro: StaffFixture,  # noqa: F811
    intake_id: str,  # noqa: F811
) -> None:
    listed_one = await applicant(directorName="Vladimir Putin")
    plain_one = await applicant(directorName="Anna Berg", country="DE")
    async with runtime.db.read() as session:
        tenant_id = (await session.get_one(Application, plain_one)).tenant_id
    wanted = views(None, tenant_id, runtime.now())
    wanted += [Filters(f.start, f.end, tenant_id, intake_id) for f in wanted]
    await run_jobs(runtime)
    await assert_exact(runtime, wanted)

    read = await client.get(f"/staff/v1/applications/{listed_one}/screening", headers=mlro.headers)
    hit_id = read.json()["data"][0]["hitId"]
    resolved = await client.post(
        f"/staff/v1/screening-hits/{hit_id}/resolve",
        json={"resolution": "match", "comment": "Same person."},
        headers=analyst.headers,
    )
    assert resolved.status_code == 200, resolved.text
    await assert_exact(runtime, wanted)

    url = f"/staff/v1/applications/{plain_one}/risk/override"
    body = {"level": "high", "reason": "Adverse media."}
    assert (await client.post(url, json=body, headers=mlro.headers)).status_code == 200
    await assert_exact(runtime, wanted)
    rows = await read_rows(runtime)
    assert any(level == "high" for level in rows.levels.values())
    assert any(h.status == "match" and h.current for h in rows.hits)

    # A later screening that no longer finds the listed entity hides the hit.
    async with runtime.db.write() as session:
        await session.execute(text("UPDATE screening_hits SET current = false"))
    await assert_exact(runtime, wanted)


def test_the_ranges_are_the_migration_s_and_hold_every_distribution_bound() -> None:
    assert MIGRATION.DECISION_EDGES == DECISION_EDGES
    bounds = {b for _l, lower, upper in DURATION_BUCKETS for b in (lower, upper) if b}
    assert bounds <= set(DECISION_EDGES)


def test_a_period_splits_into_whole_days_and_fringes() -> None:
    day = datetime(2026, 11, 20, tzinfo=UTC)
    whole = split(Filters(day - timedelta(days=3), day))
    assert (whole.first, whole.last, whole.fringes) == (
        (day - timedelta(days=3)).date(),
        day.date(),
        (),
    )
    odd = split(Filters(day - timedelta(days=2, hours=1), day + timedelta(minutes=5)))
    assert (odd.first, odd.last) == ((day - timedelta(days=2)).date(), day.date())
    assert list(odd.fringes) == [
        (day - timedelta(days=2, hours=1), day - timedelta(days=2)),
        (day, day + timedelta(minutes=5)),
    ]
    short = split(Filters(day + timedelta(hours=1), day + timedelta(hours=2)))
    assert short.first is None
    assert len(short.fringes) == 1
