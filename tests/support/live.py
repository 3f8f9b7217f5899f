"""A real uvicorn server on a free loopback port, in a background thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from tests.support.ports import free_port


@contextmanager
def serve_in_thread(make_app: Callable[[], FastAPI], port: int | None = None) -> Iterator[str]:
    """Run the app made by `make_app` (built inside the server's own event loop)."""
    port = port or free_port()
    config = uvicorn.Config(
        make_app,
        factory=True,
        host="127.0.0.1",
        port=port,
        log_config=None,
        access_log=False,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
