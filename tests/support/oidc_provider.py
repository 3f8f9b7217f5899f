"""A real OpenID Connect provider for the single sign-on tests: `oidc-provider-mock` (PyPI)
run as its own process on a loopback port. Users and their claims are set through its
`PUT /users/<sub>` route; its authorization page signs a user in by posting `sub`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.support.live import free_port

PROVIDER = Path(sys.executable).parent / "oidc-provider-mock"
CLIENT_ID = "gatehouse-dashboard"
CLIENT_SECRET = "provider-client-secret-for-tests"


@contextmanager
def oidc_provider() -> Iterator[str]:
    """The issuer URL of a running provider (stopped on exit)."""
    if not PROVIDER.exists():
        pytest.skip("oidc-provider-mock is not installed (pip install -e '.[dev]')")
    port = free_port()
    issuer = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen(
            [str(PROVIDER), "--host", "127.0.0.1", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=errors,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    found = httpx.get(issuer + "/.well-known/openid-configuration", timeout=1)
                    if found.status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    errors.seek(0)
                    raise RuntimeError(
                        "the OpenID provider did not start: " + errors.read()[-2000:]
                    )
                time.sleep(0.1)
            yield issuer
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=5)


def set_user(issuer: str, sub: str, email: str, verified: bool = True) -> None:
    """Give the provider a user with these claims (replacing any earlier ones)."""
    answer = httpx.put(
        f"{issuer}/users/{sub}", json={"email": email, "email_verified": verified}, timeout=5
    )
    assert answer.status_code == 204, answer.text
