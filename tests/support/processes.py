"""Running the real `gatehouse` command as a subprocess, for CLI and multi-process tests.

Each process's stderr (its JSON log lines) is collected and joins the
session-end leak check (tests/support/leaks.py).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.support.leaks import EXTERNAL_LINES

GATEHOUSE = str(Path(sys.executable).parent / "gatehouse")


def clean_env(**settings: str) -> dict[str, str]:
    """The test's environment without any GATEHOUSE_* setting, plus `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEHOUSE_")}
    env["PYTHONUNBUFFERED"] = "1"
    env.update({f"GATEHOUSE_{k.upper()}": v for k, v in settings.items()})
    return env


def run(
    args: list[str], env: dict[str, str], cwd: Path, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run `gatehouse <args>` to completion."""
    done = subprocess.run(
        [GATEHOUSE, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    EXTERNAL_LINES.extend(done.stderr.splitlines())
    return done


@dataclass
class Running:
    process: subprocess.Popen[str]
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)

    def wait_healthy(self, base_url: str, timeout: float = 40) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"gatehouse exited with {self.process.returncode}: "
                    + "\n".join(self.stderr[-20:])
                )
            try:
                if httpx.get(base_url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError("gatehouse did not become healthy: " + "\n".join(self.stderr[-20:]))

    def wait_for_stdout(self, predicate: object, timeout: float = 30) -> str:
        """Stdout so far, once `predicate(text)` holds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = "".join(self.stdout)
            if callable(predicate) and predicate(text):
                return text
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError("expected output did not appear: " + "\n".join(self.stderr[-20:]))


def _pump(stream: object, sink: list[str]) -> None:
    for line in iter(stream.readline, ""):  # type: ignore[attr-defined]
        sink.append(line)


@contextmanager
def started(args: list[str], env: dict[str, str], cwd: Path) -> Iterator[Running]:
    """Start `gatehouse <args>`; on exit stop it with SIGTERM (SIGKILL after 15 s)."""
    process = subprocess.Popen(
        [GATEHOUSE, *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    running = Running(process)
    pumps = [
        threading.Thread(target=_pump, args=(process.stdout, running.stdout), daemon=True),
        threading.Thread(target=_pump, args=(process.stderr, running.stderr), daemon=True),
    ]
    for pump in pumps:
        pump.start()
    try:
        yield running
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)
        for pump in pumps:
            pump.join(timeout=5)
        EXTERNAL_LINES.extend(line.rstrip("\n") for line in running.stderr)
