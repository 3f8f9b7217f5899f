"""A live Gatehouse for browser tests: a real uvicorn server on a loopback port,
the webhook delivery worker in its own thread, and Chromium driven by Playwright."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from tests.conftest import make_settings
from tests.support.databases import clear_all_tables
from tests.support.live import free_port, serve_in_thread

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
_ROOT = Path(__file__).resolve().parents[2]
# The README's pictures are refreshed on request; ordinary runs write beside the tests.
SCREENSHOTS = (
    _ROOT / "docs" / "screenshots"
    if os.environ.get("GATEHOUSE_UPDATE_SCREENSHOTS") == "1"
    else _ROOT / "test-artifacts" / "screenshots"
)

T = TypeVar("T")


def require_chromium() -> None:
    if not os.path.exists(CHROMIUM):
        pytest.skip(
            "BROWSER TESTS SKIPPED: /usr/bin/chromium is missing "
            "(install Debian's chromium: apt-get install -y chromium)"
        )


def run_async(make: Callable[[], Awaitable[T]]) -> T:
    """Run one coroutine to completion from synchronous test code."""
    return asyncio.run(make())  # type: ignore[arg-type]


def with_runtime(settings: Settings, work: Callable[[Runtime], Awaitable[T]]) -> T:
    async def go() -> T:
        runtime = Runtime.build(settings)
        try:
            return await work(runtime)
        finally:
            await runtime.close()

    return run_async(go)


@contextmanager
def delivery_worker(settings: Settings) -> Iterator[None]:
    """The webhook delivery worker polling briskly, in a thread with its own loop."""
    from gatehouse.webhooks.delivery import DeliveryWorker

    loop = asyncio.new_event_loop()
    stop_holder: dict[str, Any] = {}
    started = threading.Event()

    async def main() -> None:
        runtime = Runtime.build(settings)
        stop = asyncio.Event()
        stop_holder["stop"] = stop
        started.set()
        try:
            await DeliveryWorker(runtime, poll_seconds=0.05, lease_seconds=5).run(stop)
        finally:
            await runtime.close()

    thread = threading.Thread(target=lambda: loop.run_until_complete(main()), daemon=True)
    thread.start()
    started.wait(10)
    try:
        yield
    finally:
        loop.call_soon_threadsafe(stop_holder["stop"].set)
        thread.join(timeout=30)
        loop.close()


@contextmanager
def live_gatehouse(database_url: str) -> Iterator[Settings]:
    """Settings of a server listening at `settings.public_url`, tables emptied first."""
    port = free_port()
    settings = make_settings(database_url, public_url=f"http://127.0.0.1:{port}")
    with_runtime(settings, lambda runtime: clear_all_tables(runtime.db))
    with serve_in_thread(lambda: create_app(settings), port=port), delivery_worker(settings):
        yield settings
