"""Headers and slow clients against `gatehouse serve --workers 2` (docs/platform.md, "Slow and
oversized requests"): a header block past 32 KiB is 431, headers that stall or drip are cut
off after the header deadline, a body that stalls or drips after the body deadline, and a
connection that sends nothing at all is closed too; ordinary requests, kept-alive connections
and a large body sent at speed pass. The deadlines are shortened through their settings.
SQLite: the bounds are below the database."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.server import MAX_HEADER_BYTES
from tests.support.ports import free_port
from tests.support.processes import clean_env, started

HEADER_SECONDS = 2
BODY_SECONDS = 3
SLACK = 6  # seconds a loaded machine may add before the server's timer runs


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    folder = tmp_path_factory.mktemp("slow-clients")
    chosen = free_port()
    env = clean_env(
        database_url=f"sqlite:///{folder}/gatehouse.db",
        http_header_timeout_seconds=str(HEADER_SECONDS),
        http_body_timeout_seconds=str(BODY_SECONDS),
    )
    serve = ["serve", "--port", str(chosen), "--workers", "2", "--no-worker"]
    with started(serve, env, folder) as server:
        server.wait_healthy(f"http://127.0.0.1:{chosen}")
        yield chosen


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    return sock


def answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes or stops for a second."""
    sock.settimeout(30)
    got = sock.recv(65536)
    chunks = [got]
    sock.settimeout(1)
    try:
        while got:
            got = sock.recv(65536)
            chunks.append(got)
    except TimeoutError:
        pass
    return b"".join(chunks)


def closed_after(sock: socket.socket, drip: bytes, every: float, limit: float) -> float:
    """Send `drip` every `every` seconds until the server closes; the seconds it took."""
    start = time.monotonic()
    sock.settimeout(every)
    while time.monotonic() - start < limit:
        try:
            if sock.recv(65536) == b"":
                return time.monotonic() - start
        except TimeoutError:
            pass
        except ConnectionResetError:
            return time.monotonic() - start
        try:
            sock.sendall(drip)
        except (BrokenPipeError, ConnectionResetError):
            return time.monotonic() - start
    raise AssertionError(f"still open after {limit} s")


def get(path: str, extra: bytes = b"") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: gatehouse\r\n".encode() + extra


@pytest.mark.parametrize("size", [8 * 1024, MAX_HEADER_BYTES - 2048])
def test_a_header_block_within_the_bound_is_served(port: int, size: int) -> None:
    with connect(port) as sock:
        sock.sendall(get("/healthz", b"X-Pad: " + b"a" * size + b"\r\n\r\n"))
        assert answer(sock).startswith(b"HTTP/1.1 200 ")


@pytest.mark.parametrize(
    "headers",
    [
        b"X-Pad: " + b"a" * (256 * 1024) + b"\r\n\r\n",  # one large header
        b"".join(b"X-Pad-%d: %s\r\n" % (i, b"b" * 1000) for i in range(40)) + b"\r\n",  # many
        b"Cookie: " + b"c" * (MAX_HEADER_BYTES + 10) + b"\r\n\r\n",
    ],
    ids=["one-large", "many", "cookie"],
)
def test_a_header_block_past_the_bound_is_431(port: int, headers: bytes) -> None:
    for _ in range(4):  # both processes
        with connect(port) as sock:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                sock.sendall(get("/v1/applications", headers))
            assert answer(sock).startswith(b"HTTP/1.1 431 ")


def test_headers_that_drip_or_stall_are_cut_off(port: int) -> None:
    with connect(port) as sock:
        sock.sendall(get("/healthz"))
        took = closed_after(sock, b"X-A: b\r\n", 0.3, HEADER_SECONDS + SLACK)
        assert took >= HEADER_SECONDS - 0.5
    with connect(port) as sock:  # a connection that never sends anything
        assert closed_after(sock, b"", 0.3, HEADER_SECONDS + SLACK) >= HEADER_SECONDS - 0.5
    with connect(port) as sock:  # one byte of a request line, then nothing
        sock.sendall(b"G")
        assert closed_after(sock, b"", 0.3, HEADER_SECONDS + SLACK) >= HEADER_SECONDS - 0.5


def test_a_body_that_drips_or_stalls_is_cut_off(port: int) -> None:
    head = (
        b"POST /v1/applications HTTP/1.1\r\nHost: gatehouse\r\n"
        b"Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n"
    )
    with connect(port) as sock:
        sock.sendall(head + b'{"email": "')
        took = closed_after(sock, b"a", 0.3, BODY_SECONDS + SLACK)
        assert took >= BODY_SECONDS - 0.5
    with connect(port) as sock:
        sock.sendall(head + b'{"email": "')
        assert closed_after(sock, b"", 0.5, BODY_SECONDS + SLACK) >= BODY_SECONDS - 0.5


def test_kept_alive_connections_and_fast_large_bodies_pass(port: int) -> None:
    with connect(port) as sock:
        for _ in range(3):
            sock.sendall(get("/healthz", b"\r\n"))
            assert answer(sock).startswith(b"HTTP/1.1 200 ")
        # The next request on the same connection has a header deadline of its own.
        sock.sendall(get("/healthz"))
        assert closed_after(sock, b"X-A: b\r\n", 0.3, HEADER_SECONDS + SLACK) > 0
    body = b'{"email": "' + b"a" * 2_000_000 + b'"}'
    with connect(port) as sock:
        sock.sendall(
            b"POST /v1/applications HTTP/1.1\r\nHost: gatehouse\r\nContent-Type: "
            b"application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        # Too large for a JSON body (docs/platform.md, "Body size"): answered, not cut off.
        assert answer(sock).startswith(b"HTTP/1.1 413 ")


def test_the_setting_is_bounded(tmp_path: Path) -> None:
    from pydantic import ValidationError

    from gatehouse.settings import Settings

    with pytest.raises(ValidationError):
        Settings(database_url=f"sqlite:///{tmp_path}/x.db", http_body_timeout_seconds=61)
