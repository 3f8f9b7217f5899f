"""Driving load with wrk (a compiled load generator, run as a separate process)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

LUA = Path(__file__).parent / "lua" / "scenario.lua"


@dataclass(frozen=True)
class Load:
    method: str
    paths: list[str]
    auth: str | None = None
    body: str | None = None  # "{n}" is replaced with a unique value per request
    idempotency_key: str | None = None


@dataclass(frozen=True)
class WrkResult:
    requests: int
    seconds: float
    errors: int
    p50_ms: float
    p90_ms: float
    p99_ms: float

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


def wrk_path() -> str:
    found = shutil.which("wrk") or "/usr/bin/wrk"
    if not Path(found).exists():
        raise SystemExit("wrk is required: apt-get install wrk")
    return found


def run_wrk(
    base_url: str,
    load: Load,
    *,
    seconds: float,
    connections: int,
    threads: int,
    nonce: str,
) -> WrkResult:
    # Each run starts at a random place in its path list, so that repeated runs (rounds,
    # servers, warm-ups) spread over the list instead of always hitting its head (member
    # adds would otherwise pile onto the first applications until the 20-member cap).
    start = secrets.randbelow(len(load.paths))
    with tempfile.NamedTemporaryFile("w", suffix=".paths", delete=False) as handle:
        handle.write("\n".join(load.paths[start:] + load.paths[:start]) + "\n")
        paths_file = handle.name
    env = dict(os.environ)
    env.update(
        BENCH_METHOD=load.method,
        BENCH_PATHS_FILE=paths_file,
        BENCH_NONCE=nonce,
        BENCH_BODY=load.body or "",
    )
    for name, value in (("BENCH_AUTH", load.auth), ("BENCH_IDEMPOTENCY", load.idempotency_key)):
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    command = [
        wrk_path(),
        f"-t{threads}",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "10s",
        "-s",
        str(LUA),
        base_url + load.paths[0],
    ]
    try:
        completed = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=seconds + 60, check=False
        )
    finally:
        Path(paths_file).unlink(missing_ok=True)
    for line in completed.stdout.splitlines():
        if line.startswith("BENCH_RESULT "):
            data = json.loads(line.removeprefix("BENCH_RESULT "))
            errors = (
                sum(
                    data[k]
                    for k in ("connect_errors", "read_errors", "write_errors", "status_errors")
                )
                + data["timeouts"]
            )
            return WrkResult(
                requests=data["requests"],
                seconds=data["duration_us"] / 1e6,
                errors=errors,
                p50_ms=data["p50_us"] / 1000,
                p90_ms=data["p90_us"] / 1000,
                p99_ms=data["p99_us"] / 1000,
            )
    raise RuntimeError(f"wrk gave no result: {completed.stdout} {completed.stderr}")
