"""Benchmarks of the tenant API against its own stack and against a bare FastAPI app.

    .venv/bin/python bench/run.py                    # full run, uvicorn (15 to 20 minutes)
    .venv/bin/python bench/run.py --quick            # smoke run (about 2 minutes)
    .venv/bin/python bench/run.py --quick --server both --rounds 3   # uvicorn and granian

For each configuration (SQLite; PostgreSQL; PostgreSQL with `--workers 2` and
Redis) and each chosen server (uvicorn, the product's; granian, for comparison)
it starts two servers as separate processes with the same server, options and
number of processes (bench/server.py): Gatehouse (bench/product.py: the product's
own factory plus bench-only routes) and the bare FastAPI app (bench/bare.py: one
"hello" route, no Gatehouse code). It seeds a tenant with 100,000+ applications
by bulk INSERTs and drives every scenario with wrk.

A round measures the bare app, the same-stack baseline (a trivial route through
Gatehouse's edge), every scenario, the baseline again and the bare app again.
Each scenario's ratios are taken against the references of its own round (the
mean of their two samples), so a slow minute of a shared machine moves both
sides; with `--rounds N` every figure printed is the median of the N rounds.
Then it prints the targets (MET/MISS), the uvicorn/granian comparison and what
each server was seen to preserve (headers, lifespan, workers, graceful stop).

The parts: bench/serving.py (configurations, the servers' lifecycle),
bench/rounds.py (wrk, round by round), bench/results.py (samples and ratios),
bench/targets.py (the targets and their verdicts), bench/checks.py (what the
server preserves), bench/report.py (what is printed), bench/support.py (ports,
scratch databases, processes).

Environment: GATEHOUSE_BENCH_POSTGRES_URL (an admin DSN, default
postgresql://postgres@127.0.0.1:5432/postgres; a scratch database is created
and dropped), GATEHOUSE_BENCH_REDIS_URL (default redis://127.0.0.1:6379/13).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import secrets
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this folder comes first on sys.path, where bench/queue.py and
# bench/profile.py would shadow the standard library's modules of those names.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import procstats  # noqa: E402
from bench.loadgen import wrk_path  # noqa: E402
from bench.report import Conditions, print_report  # noqa: E402
from bench.results import Report, to_json  # noqa: E402
from bench.rounds import FULL, QUICK, Plan, run_config  # noqa: E402
from bench.seed import seed  # noqa: E402
from bench.serving import CONFIGS, SERVER_KINDS, server_env  # noqa: E402
from bench.support import REDIS_URL, database  # noqa: E402
from gatehouse.settings import Settings  # noqa: E402
from gatehouse.storage.migrate import upgrade  # noqa: E402

# What other benchmarks take from here (bench/micro.py): the servers' environment, the
# configurations, the Redis URL and the scratch databases.
__all__ = ["CONFIGS", "REDIS_URL", "database", "main", "server_env"]


def parse_plan(args: argparse.Namespace) -> Plan:
    plan = QUICK if args.quick else FULL
    return Plan(
        plan.applications,
        plan.depth,
        args.seconds or plan.seconds,
        plan.warmup,
        args.connections or plan.connections,
        max(1, args.rounds or plan.rounds),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument(
        "--configs",
        default="sqlite,pg,pg2",
        help="comma-separated subset of: " + ", ".join(CONFIGS),
    )
    parser.add_argument(
        "--server",
        choices=(*SERVER_KINDS, "both"),
        default="uvicorn",
        help="which server runs Gatehouse and the bare app (default: uvicorn, the product's)",
    )
    parser.add_argument("--rounds", type=int, help="rounds per server; figures are medians")
    parser.add_argument("--seconds", type=float, help="measured seconds per scenario")
    parser.add_argument("--connections", type=int, help="wrk connections")
    parser.add_argument("--json", type=Path, help="also write every sample to this file")
    args = parser.parse_args()
    plan = parse_plan(args)
    kinds = list(SERVER_KINDS) if args.server == "both" else [args.server]
    wrk_path()  # exits with the install command when wrk is missing
    if "granian" in kinds and importlib.util.find_spec("granian") is None:
        raise SystemExit("granian is not installed: .venv/bin/pip install granian")
    chosen = [CONFIGS[name.strip()] for name in args.configs.split(",") if name.strip()]
    started = datetime.now(UTC)
    load_before = procstats.load_average()
    busy_before = os.getloadavg()[0]
    reports: list[Report] = []
    secret_key = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory(prefix="gatehouse-bench-") as tmp:
        workdir = Path(tmp)
        cursors: dict[str, str | None] = {}
        for kind in ("sqlite", "postgres"):
            configs = [c for c in chosen if c.database == kind]
            if not configs:
                continue
            with database(kind, workdir) as url:
                print(
                    f"# {kind}: migrating and seeding {plan.applications:,} applications",
                    file=sys.stderr,
                    flush=True,
                )
                upgrade(url)
                t0 = time.monotonic()
                seeded = asyncio.run(
                    seed(Settings(database_url=url, secret_key=secret_key), plan.applications)
                )
                print(f"#   seeded in {time.monotonic() - t0:.1f} s", file=sys.stderr, flush=True)
                for config in configs:
                    reports += run_config(
                        config, kinds, url, secret_key, seeded, plan, workdir, cursors
                    )
    conditions = Conditions(
        started=started,
        finished=datetime.now(UTC),
        load_before=load_before,
        load_after=procstats.load_average(),
        busy_before=busy_before,
    )
    print_report(reports, plan, conditions)
    if args.json:
        args.json.write_text(json.dumps(to_json(reports), indent=1) + "\n")


if __name__ == "__main__":
    main()
