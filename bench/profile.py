"""Profile one scenario of the benchmark with py-spy (bench/RESULTS.md: "profile, then fix").

    .venv/bin/python bench/profile.py --scenario "application read" --database postgres

Seeds a small database, serves it with bench/server.py (one process), drives the
scenario with wrk while `py-spy record` samples the server, and prints the
functions with the most samples: inclusive (anywhere on the stack) and own.
py-spy must be installed in the virtualenv (`.venv/bin/pip install py-spy`).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this folder comes first on sys.path, where bench/queue.py and
# bench/profile.py would shadow the standard library's modules of those names.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import scenarios  # noqa: E402
from bench.loadgen import run_wrk  # noqa: E402
from bench.seed import seed  # noqa: E402
from bench.serving import Config, server, server_env  # noqa: E402
from bench.support import database, free_port  # noqa: E402
from gatehouse.settings import Settings  # noqa: E402
from gatehouse.storage.migrate import upgrade  # noqa: E402


def summarize(collapsed: Path, top: int, focus: str) -> str:
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in collapsed.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue  # a frame name spread over lines
        count = int(count_text)
        frames = stack.split(";")
        if focus and not any(focus in frame for frame in frames):
            continue
        total += count
        own[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count
    lines = [f"{total} samples" + (f" under {focus!r}" if focus else "")]
    lines.append("\ninclusive (Gatehouse frames):")
    ours = [(f, n) for f, n in inclusive.most_common() if "gatehouse/" in f or "bench/" in f]
    lines += [f"{n / total:6.1%}  {frame}" for frame, n in ours[:top]]
    lines.append("\ninclusive (all):")
    lines += [f"{n / total:6.1%}  {frame}" for frame, n in inclusive.most_common(top)]
    lines.append("\nown:")
    lines += [f"{n / total:6.1%}  {frame}" for frame, n in own.most_common(top)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default=scenarios.READ)
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--applications", type=int, default=3_000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--top", type=int, default=45)
    parser.add_argument("--focus", default="", help="only stacks through this frame text")
    parser.add_argument("--raw-output", help="also keep py-spy's raw stacks in this file")
    args = parser.parse_args()
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    config = Config("profile", args.database, 1, False)
    secret_key = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory(prefix="gatehouse-profile-") as tmp:
        workdir = Path(tmp)
        with database(args.database, workdir) as url:
            upgrade(url)
            seeded = asyncio.run(
                seed(Settings(database_url=url, secret_key=secret_key), args.applications)
            )
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            env = server_env(url, secret_key, config, port)
            with server(env, port, 1, workdir) as pid:
                cursor = scenarios.deep_cursor(base, seeded, min(1_000, args.applications // 2))
                chosen = {s.name: s for s in scenarios.build(seeded, cursor, 1_000)}
                scenario = next(s for name, s in chosen.items() if name.startswith(args.scenario))
                problem = scenarios.check(base, scenario, "profilecheck")
                if problem:
                    raise SystemExit(f"{scenario.name}: {problem}")
                collapsed = workdir / "profile.txt"
                recorder = subprocess.Popen(
                    [
                        py_spy,
                        "record",
                        "--pid",
                        str(pid),
                        "--format",
                        "raw",
                        "--rate",
                        "250",
                        "--duration",
                        str(args.seconds),
                        "--output",
                        str(collapsed),
                        "--nonblocking",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
                load = threading.Thread(
                    target=run_wrk,
                    args=(base, scenario.load),
                    kwargs={
                        "seconds": args.seconds + 2,
                        "connections": 8,
                        "threads": 1,
                        "nonce": secrets.token_hex(4),
                    },
                )
                load.start()
                recorder.wait()
                load.join()
                print(f"# {scenario.name} on {args.database}")
                print(summarize(collapsed, args.top, args.focus))
                if args.raw_output:
                    shutil.copy(collapsed, args.raw_output)


if __name__ == "__main__":
    main()
