"""Memory of one serving process under 200 slow or oversized clients (docs/platform.md, "Slow
and oversized requests").

Starts `gatehouse serve` (one process, uvicorn with Gatehouse's guarded protocol) and, as the
reference in the same run, the same app under plain uvicorn with its httptools protocol; then,
against each, holds 200 connections of one kind at a time and reads the process's resident
memory (VmRSS):

- `drip`: 31 KiB of headers (under the 32 KiB bound), never finished;
- `oversized`: 256 KiB of headers, never finished (past the bound);
- `body`: complete headers and half of a 64 KiB JSON body, never finished.

    .venv/bin/python bench/slow_clients.py [--connections 200]

Prints RSS before, while holding, the growth, and the ratio of growth against the reference.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
GATEHOUSE = str(ROOT / ".venv" / "bin" / "gatehouse")
KINDS = {
    "drip": b"GET /healthz HTTP/1.1\r\nHost: g\r\nX-Pad: " + b"a" * (31 * 1024),
    "oversized": b"GET /healthz HTTP/1.1\r\nHost: g\r\nX-Pad: " + b"a" * (256 * 1024),
    "body": b"POST /v1/applications HTTP/1.1\r\nHost: g\r\nContent-Type: application/json\r\n"
    b"Content-Length: 65536\r\n\r\n" + b'{"email": "' + b"a" * 32000,
}


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_healthy(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the server exited")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError("the server did not start")


def hold(port: int, payload: bytes, count: int) -> list[socket.socket]:
    held = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError, ConnectionError):
            sock.send(payload)
        held.append(sock)
    return held


def measure(pid: int, port: int, count: int) -> dict[str, tuple[int, int]]:
    found = {}
    for kind, payload in KINDS.items():
        before = rss_kib(pid)
        held = hold(port, payload, count)
        time.sleep(1.5)  # inside the 10 s header deadline: the connections are still held
        during = rss_kib(pid)
        for sock in held:
            sock.close()
        found[kind] = (before, during)
        time.sleep(1.0)
    return found


def start(args: list[str], env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_healthy(port, process)
    return process


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=200)
    count = parser.parse_args().connections
    folder = tempfile.mkdtemp(prefix="gatehouse-slow-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEHOUSE_")}
    env["GATEHOUSE_DATABASE_URL"] = f"sqlite:///{folder}/gatehouse.db"
    env["GATEHOUSE_SERVE_NO_WORKER"] = "1"
    subprocess.run([GATEHOUSE, "migrate"], env=env, check=True, capture_output=True)
    results = {}
    runs = {
        "guarded (gatehouse serve)": [GATEHOUSE, "serve", "--no-worker", "--port"],
        "reference (plain uvicorn, httptools)": [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "gatehouse.server:asgi_app",
            "--http",
            "httptools",
            "--no-access-log",
            "--port",
        ],
    }
    for name, args in runs.items():
        port = free_port()
        process = start([*args, str(port)], env, port)
        try:
            results[name] = measure(process.pid, port, count)
        finally:
            process.terminate()
            process.wait(timeout=20)
    print(f"load average: {Path('/proc/loadavg').read_text().strip()}")
    print(f"{count} connections held per kind; RSS of the serving process in MiB")
    growth: dict[str, dict[str, float]] = {}
    for name, found in results.items():
        print(name)
        for kind, (before, during) in found.items():
            grew = (during - before) / 1024
            growth.setdefault(kind, {})[name] = grew
            print(
                f"  {kind:10} before {before / 1024:7.1f}  holding {during / 1024:7.1f}  "
                f"growth {grew:7.1f}"
            )
    guarded, reference = list(results)
    for kind, by in growth.items():
        ratio = by[guarded] / by[reference] if by[reference] > 0 else float("nan")
        print(f"growth ratio guarded/reference, {kind}: {ratio:.2f}")


if __name__ == "__main__":
    main()
