"""A hostile receiver: a raw TCP server on a loopback port that answers whatever bytes a
test scripts, at whatever pace, including what no well-behaved HTTP server would send.

Each request is read (headers and a Content-Length body) and recorded; the next scripted
`Answer` is written (its `head` once `hold` is set or `hold_max` seconds passed, then
`drip` one chunk per `interval`, then the connection is closed). When the script is used
up, every request gets `200 OK`.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from tests.support.patience import patient

OK = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"


@dataclass(frozen=True)
class Answer:
    head: bytes
    drip: tuple[bytes, ...] = ()
    interval: float = 0.0
    hold: threading.Event | None = None
    hold_max: float = 0.0


def status(code: int, *headers: tuple[str | bytes, str | bytes], body: bytes = b"") -> Answer:
    """`HTTP/1.1 <code>` with raw header bytes (any bytes: no encoding rule is applied)."""
    lines = [b"HTTP/1.1 %d X" % code, b"Connection: close"]
    for name, value in headers:
        raw_name = name.encode() if isinstance(name, str) else name
        raw_value = value.encode() if isinstance(value, str) else value
        lines.append(raw_name + b": " + raw_value)
    lines.append(b"Content-Length: %d" % len(body))
    return Answer(b"\r\n".join(lines) + b"\r\n\r\n" + body)


@dataclass
class Request:
    head: bytes
    body: bytes
    at: float
    answered_at: float | None = None

    @property
    def headers(self) -> dict[str, str]:
        lines = self.head.decode("latin-1").split("\r\n")[1:]
        pairs = (line.split(":", 1) for line in lines if ":" in line)
        return {name.strip().lower(): value.strip() for name, value in pairs}


@dataclass
class Hostile:
    script: list[Answer] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            request = Request(head, b"", time.time())
            length = int(request.headers.get("content-length", "0"))
            request.body = await reader.readexactly(length)
            with self._lock:
                self.requests.append(request)
                answer = self.script.pop(0) if self.script else Answer(OK)
            if answer.hold is not None:
                await asyncio.to_thread(answer.hold.wait, answer.hold_max)
            request.answered_at = time.time()
            writer.write(answer.head)
            await writer.drain()
            for chunk in answer.drip:
                await asyncio.sleep(answer.interval)
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client gave up first (its right), or the server is stopping
        finally:
            writer.close()

    def snapshot(self) -> list[Request]:
        with self._lock:
            return list(self.requests)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Request]:
        deadline = time.monotonic() + patient(timeout)
        while len(self.snapshot()) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"got {len(self.snapshot())} requests, expected {count}")
            time.sleep(0.01)
        return self.snapshot()


@contextmanager
def running_hostile(hostile: Hostile) -> Iterator[Hostile]:
    """Serve `hostile` on a free loopback port, in its own thread and event loop."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    holder: dict[str, asyncio.Server] = {}

    async def start() -> None:
        server = await asyncio.start_server(hostile._serve, "127.0.0.1", 0)
        holder["server"] = server
        port = server.sockets[0].getsockname()[1]
        hostile.url = f"http://127.0.0.1:{port}/hooks"
        started.set()

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    started.wait(10)
    try:
        yield hostile
    finally:

        async def stop() -> None:
            server = holder["server"]
            server.close()
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
