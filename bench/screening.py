"""Screening at scale (docs/screening.md): load time, screening latency, memory, and recall
and false positives on a labelled set of name variants (bench/screening_data.py).

    .venv/bin/python -m bench.screening                           # 10k and 100k, SQLite
    .venv/bin/python -m bench.screening --sizes 1000000            # a million
    .venv/bin/python -m bench.screening --database postgres        # GATEHOUSE_BENCH_POSTGRES_URL

For each size: a fresh database, a generated list written to a file and loaded as
`gatehouse screening load` does (timed), then `--applications` applications of two subjects
each (a company and a person: a variant of a listed entity, or a name the list does not
hold) screened as the worker does (keys in the matcher's process, the blocking index in the
database, the matcher's scores), one after another, timed each. References measured in the
same run: one matcher comparison (the unit of work the index saves) and, at 10,000 entities,
the same screening without the index (every entity scored). Memory: the peak RSS of this
process (the loader), the matcher's process, and a separate API process that serves the
staff screening and risk reads of this database (it never loads the matching libraries).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.procstats import process_tree
from bench.screening_data import negatives, variant, write
from bench.support import database, percentile
from gatehouse.domain.screening import SubjectKind
from gatehouse.runtime import Runtime
from gatehouse.screening import matching
from gatehouse.screening.lists import load_list
from gatehouse.screening.pool import in_matcher
from gatehouse.screening.queries import lists_in_force
from gatehouse.screening.runner import find
from gatehouse.screening.subjects import Subject
from gatehouse.settings import Settings
from gatehouse.storage.migrate import upgrade_async

SECRET = "bench-secret-key-for-screening-only-0123456789abcdef"  # noqa: S105 (a scratch key)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _subject(kind: str, name: str) -> Subject:
    field = "companyName" if kind == "company" else "directorName"
    return Subject(SubjectKind.COMPANY if kind == "company" else SubjectKind.PERSON, field, name)


def _labelled(sample: list[Any], count: int) -> tuple[list[Any], list[tuple[str, str]]]:
    rng = random.Random(5)
    chosen = rng.sample(sample, min(count, len(sample)))
    return [(listed, *variant(listed, rng)) for listed in chosen], negatives(count)


async def _screen_all(
    runtime: Runtime, positives: list[Any], negative: list[tuple[str, str]], pairs: int
) -> dict[str, Any]:
    async with runtime.db.read() as session:
        lists = await lists_in_force(session)
    timings: list[float] = []
    missed: dict[str, int] = {}
    found = false_hits = 0
    subjects = [(_subject(p[0].kind, p[1]), p) for p in positives] + [
        (_subject(kind, name), None) for kind, name in negative
    ]
    random.Random(3).shuffle(subjects)
    for n in range(0, min(len(subjects), pairs * 2), 2):
        batch = subjects[n : n + 2]
        start = time.perf_counter()
        hits = await find(runtime, [s for s, _ in batch], lists)
        timings.append((time.perf_counter() - start) * 1000)
        for subject, label in batch:
            mine = [h for h in hits if h.subject is subject]
            if label is None:
                false_hits += bool(mine)
            elif any(h.entity_id == label[0].entity["id"] for h in mine):
                found += 1
            else:
                missed[label[2]] = missed.get(label[2], 0) + 1
    screened_positives = sum(1 for s, label in subjects[: len(timings) * 2] if label)
    screened_negatives = len(timings) * 2 - screened_positives
    return {
        "p50": percentile(timings, 0.5),
        "p95": percentile(timings, 0.95),
        "applications": len(timings),
        "recall": found / max(1, screened_positives),
        "positives": screened_positives,
        "fpr": false_hits / max(1, screened_negatives),
        "negatives": screened_negatives,
        "missed": missed,
    }


async def _references(runtime: Runtime, size: int) -> dict[str, float]:
    """One matcher comparison; at 10,000 entities, one subject scored against every one."""
    subject = _subject("person", "Marko Danilo Ribakov")
    entity = {"id": "x", "schema": "Person", "properties": {"name": ["Marko Ribakov"]}}
    await in_matcher(matching.score_all, subject, [entity])
    start = time.perf_counter()
    for _ in range(20):
        await in_matcher(matching.score_all, subject, [entity])
    out = {"compare_ms": (time.perf_counter() - start) * 1000 / 20}
    if size <= 10_000:
        from sqlalchemy import select

        from gatehouse.storage.tables.screening import ScreeningEntity

        async with runtime.db.read() as session:
            every = [row.data for row in await session.scalars(select(ScreeningEntity))]
        start = time.perf_counter()
        await in_matcher(matching.score_all, subject, every)
        out["scan_ms"] = (time.perf_counter() - start) * 1000
    return out


API_PROBE = """
import asyncio, sys, httpx
from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
def rss():
    return [int(l.split()[1]) / 1024 for l in open('/proc/self/status') if l.startswith('VmRSS')][0]
async def main():
    settings = Settings(database_url=sys.argv[1], secret_key=sys.argv[2])
    runtime = Runtime.build(settings)
    app = create_app(settings, runtime)
    from gatehouse.accounts.lifecycle import create_staff_member
    from gatehouse.audit.context import WriteContext
    ctx = WriteContext.system('cli', runtime.now())
    made = await create_staff_member(runtime, 'probe@example.test', 'analyst', ctx)
    headers = {'Authorization': 'Bearer ' + made['token']}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url='http://t', headers=headers
    ) as client:
        before = rss()
        for _ in range(50):
            await client.get('/staff/v1/screening/lists')
            await client.get('/staff/v1/applications/app_none/screening')
            await client.get('/staff/v1/applications/app_none/risk')
    names = ('nomenklatura', 'followthemoney', 'rigour', 'sklearn')
    loaded = [m for m in names if m in sys.modules]
    print(f'{before:.1f} {rss():.1f} {"+".join(loaded) or "none"}')
    await runtime.close()
asyncio.run(main())
"""


def _api_process(url: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", API_PROBE, url, SECRET],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    before, after, loaded = done.stdout.split()
    return f"API process {before} MB after start, {after} MB after 150 reads; loaded: {loaded}"


async def _one_size(url: str, size: int, workdir: Path, applications: int) -> None:
    await upgrade_async(url)
    path = workdir / f"list-{size}.ftm.json"
    started = time.perf_counter()
    sample = write(str(path), size, max(1, size // 2000))
    print(f"  generated {size:,} entities in {time.perf_counter() - started:.0f} s "
          f"({path.stat().st_size / 1e6:.0f} MB)", flush=True)  # fmt: skip
    runtime = Runtime.build(Settings(database_url=url, secret_key=SECRET))
    try:
        load = os.getloadavg()
        started = time.perf_counter()
        result = await load_list(runtime, path, "bench")
        seconds = time.perf_counter() - started
        print(f"  load: {seconds:.1f} s for {result.entities:,} entities "
              f"({result.entities / seconds:,.0f}/s); load average before "
              f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)  # fmt: skip
        positives, negative = _labelled(sample, applications)
        await find(runtime, [_subject("person", "warm up")], [])  # start the matcher
        refs = await _references(runtime, size)
        figures = await _screen_all(runtime, positives, negative, applications)
        matcher = [pid for pid in process_tree(os.getpid()) if pid != os.getpid()]
        print(f"  screening one application (2 subjects): p50 {figures['p50']:.1f} ms, "
              f"p95 {figures['p95']:.1f} ms over {figures['applications']}; one matcher "
              f"comparison {refs['compare_ms']:.2f} ms (p50 = "
              f"{figures['p50'] / refs['compare_ms']:.0f} comparisons)", flush=True)  # fmt: skip
        if "scan_ms" in refs:
            print(f"  without the index (every entity scored): {refs['scan_ms']:.0f} ms "
                  "for one subject")  # fmt: skip
        print(f"  recall {figures['recall']:.3f} ({figures['positives']} variants; missed "
              f"by kind: {figures['missed'] or 'none'}), false-positive rate "
              f"{figures['fpr']:.3f} ({figures['negatives']} unlisted names)")  # fmt: skip
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        matcher_rss = " + ".join(f"{_rss_mb(pid):.0f}" for pid in matcher) or "?"
        print(f"  memory: loader peak {peak:.0f} MB; matcher process {matcher_rss} MB; "
              f"{_api_process(url)}; load average after "
              f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)  # fmt: skip
    finally:
        await runtime.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--applications", type=int, default=200)
    args = parser.parse_args()
    print(f"screening bench, {args.database}; load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")  # fmt: skip
    for size in (int(s) for s in args.sizes.split(",")):
        print(f"{size:,} entities", flush=True)
        with tempfile.TemporaryDirectory() as tmp, database(args.database, Path(tmp)) as url:
            asyncio.run(_one_size(url, size, Path(tmp), args.applications))


if __name__ == "__main__":
    main()
