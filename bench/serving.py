"""The configurations measured, and the servers' lifecycle (start, wait until settled, stop).

A configuration is a database and a number of processes (with Redis when there are
several). For each, bench/run.py starts two servers as separate processes with
bench/server.py, the same server, options and number of processes: Gatehouse
(bench/product.py) and the bare FastAPI app (bench/bare.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench import procstats
from bench.bare import HELLO_PATH
from bench.support import REDIS_URL, stop_process

ROOT = Path(__file__).resolve().parent.parent
UNLIMITED = "1000000000"
SERVER_KINDS = ("uvicorn", "granian")


@dataclass(frozen=True)
class Config:
    name: str
    database: str  # "sqlite" or "postgres"
    workers: int
    redis: bool


CONFIGS = {
    "sqlite": Config("SQLite, 1 process", "sqlite", 1, False),
    "pg": Config("PostgreSQL, 1 process", "postgres", 1, False),
    "pg2": Config("PostgreSQL, 2 processes + Redis", "postgres", 2, True),
}


def server_env(database_url: str, secret_key: str, config: Config, port: int) -> dict[str, str]:
    """The servers' environment: no rate limit in the way, no access line, bench routes on."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEHOUSE_")}
    # Byte-code cached outside the tree, so that server processes start fast.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        PYTHONPYCACHEPREFIX=str(Path(tempfile.gettempdir()) / "gatehouse-bench-pycache"),
        PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "src")]),
        GATEHOUSE_DATABASE_URL=database_url,
        GATEHOUSE_SECRET_KEY=secret_key,
        GATEHOUSE_PUBLIC_URL=f"http://127.0.0.1:{port}",
        GATEHOUSE_RATE_LIMIT_PER_KEY=UNLIMITED,
        GATEHOUSE_RATE_LIMIT_PER_IP=UNLIMITED,
        GATEHOUSE_LOG_LEVEL="WARNING",
        GATEHOUSE_BENCH_BASELINE="1",
    )
    if config.redis:
        env["GATEHOUSE_REDIS_URL"] = REDIS_URL
    return env


@dataclass(frozen=True)
class Served:
    kind: str  # "uvicorn" or "granian"
    app: str  # "gatehouse" or "bare"
    workers: int
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def serve(
    env: dict[str, str],
    port: int,
    workers: int,
    workdir: Path,
    *,
    kind: str = "uvicorn",
    app: str = "gatehouse",
) -> Iterator[Served]:
    """Start bench/server.py as its own process; yield it once it answers and has settled."""
    log_path = workdir / f"server-{app}-{kind}-{port}.log"
    ready = "/healthz" if app == "gatehouse" else HELLO_PATH
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "bench" / "server.py"),
                "--port",
                str(port),
                "--workers",
                str(workers),
                "--server",
                kind,
                "--app",
                app,
            ],
            env=env,
            cwd=workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 180
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"{kind} server ({app}) exited: {_last_line(log_path)}")
                try:
                    if httpx.get(f"http://127.0.0.1:{port}{ready}", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"{kind} server ({app}) did not start: {_last_line(log_path)}"
                    )
                time.sleep(0.2)
            _settle(process.pid, deadline)
            yield Served(kind, app, workers, port, process, log_path)
        finally:
            stop_process(process)


@contextmanager
def server(env: dict[str, str], port: int, workers: int, workdir: Path) -> Iterator[int]:
    """Gatehouse under uvicorn; yields its pid (used by bench/profile.py)."""
    with serve(env, port, workers, workdir) as served:
        yield served.pid


def _last_line(log: Path) -> str:
    """The server log's last line (a traceback's verdict); the whole tail goes to stderr."""
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    for line in lines[-15:]:
        print(f"#     | {line}", file=sys.stderr, flush=True)
    return lines[-1].strip() if lines else "(empty log)"


def _settle(pid: int, deadline: float) -> None:
    """Wait until the server's processes stop burning CPU (every worker has started)."""
    before = procstats.cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = procstats.cpu_seconds(pid)
        if now - before < 0.1:
            return
        before = now
