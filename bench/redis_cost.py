"""What one rate-limit script costs this process, redis-py against the previous client.

    .venv/bin/python bench/redis_cost.py                 # 3 rounds of 2 s per client
    .venv/bin/python bench/redis_cost.py --previous REV  # the previous client from REV

Gatehouse's windows (limits/ratelimit.py) run one Lua script per `/v1` request through
redis-py's asyncio client (limits/redis_client.py). Before, a client of its own wrote
EVALSHA over plain asyncio streams (`limits/redis_script.py`, removed); this loads that
module from git history (the parent of the commit that removed it, or `--previous`) and
runs the same script on the same Redis (GATEHOUSE_BENCH_REDIS_URL, default database 13),
one call at a time on one uvloop loop, and prints the process CPU time per call
(`time.process_time`) and the wall time per call, each client's median over the rounds,
and the ratio. Both scripts of the windows are measured: the per-IP window alone
(`WINDOW_SCRIPT`) and both windows at once (`ADDRESS_AND_KEY_SCRIPT`).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# bench/queue.py would shadow the standard library's `queue` (redis-py imports it).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import uvloop  # noqa: E402

from bench.support import REDIS_URL  # noqa: E402
from gatehouse.limits.ratelimit import (  # noqa: E402
    ADDRESS_AND_KEY_SCRIPT,
    WINDOW_SCRIPT,
    RedisWindows,
    window_key,
)

OLD_MODULE = "src/gatehouse/limits/redis_script.py"
Call = Callable[[], Awaitable[Any]]


def previous_revision() -> str:
    """The parent of the commit that removed the previous client."""
    removed = subprocess.run(
        ["git", "log", "--diff-filter=D", "--format=%H", "-1", "--", OLD_MODULE],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not removed:
        raise SystemExit(f"{OLD_MODULE} was never removed here: give --previous REV")
    return f"{removed}^"


def load_previous(revision: str) -> Any:
    """The previous client's module, as it was at `revision`."""
    source = subprocess.run(
        ["git", "show", f"{revision}:{OLD_MODULE}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="redis-cost-"))
    path = folder / "previous_redis_script.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("previous_redis_script", path)
    if spec is None or spec.loader is None:
        raise SystemExit("cannot load the previous client")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def measure(call: Call, seconds: float) -> tuple[float, float]:
    """(CPU us per call, wall us per call) over `seconds` of sequential calls."""
    for _ in range(200):
        await call()
    calls = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    deadline = wall0 + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            await call()
        calls += 100
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return cpu / calls * 1e6, wall / calls * 1e6


async def run(args: argparse.Namespace) -> None:
    previous = load_previous(args.previous or previous_revision())
    windows = RedisWindows(args.redis_url)
    old = previous.ScriptClient(args.redis_url)
    window = previous.Script.of(WINDOW_SCRIPT)
    both = previous.Script.of(ADDRESS_AND_KEY_SCRIPT)
    ip_key = window_key("ip", "bench-redis-cost", 10**9)
    key_key = window_key("key", "bench-redis-cost", 10**9)
    calls: dict[str, Call] = {
        "redis-py, one window": lambda: windows.hit(ip_key),
        "previous, one window": lambda: old.run(window, [ip_key], [60_000]),
        "redis-py, both windows": lambda: windows.hit_both(ip_key, 10**9, key_key),
        "previous, both windows": lambda: old.run(both, [ip_key, key_key], [60_000, 10**9]),
    }
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in calls}
    try:
        for round_ in range(args.rounds):
            order = list(calls) if round_ % 2 == 0 else list(reversed(calls))
            for name in order:
                samples[name].append(await measure(calls[name], args.seconds))
    finally:
        await windows.client.delete(ip_key, key_key)
        await windows.close()
        await old.close()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])  # noqa: ASYNC240
    print(f"Redis {args.redis_url}, {args.rounds} rounds of {args.seconds} s; load {load}")
    medians = {
        name: (statistics.median(c for c, _ in runs), statistics.median(w for _, w in runs))
        for name, runs in samples.items()
    }
    for name, (cpu, wall) in medians.items():
        print(f"{name:24} CPU {cpu:6.1f} us/call   wall {wall:6.1f} us/call")
    for script in ("one window", "both windows"):
        new, prev = medians[f"redis-py, {script}"], medians[f"previous, {script}"]
        cpu, wall = new[0] / prev[0], new[1] / prev[1]
        print(f"{script}: redis-py / previous = CPU {cpu:.2f}x, wall {wall:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis-url", default=REDIS_URL)
    parser.add_argument("--previous", help="git revision holding the previous client")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0)
    uvloop.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
