"""Redis round trips per request (bench/RESULTS.md: limits/ratelimit.py, limits/credentials.py).

The runtime talks to the real Redis of GATEHOUSE_TEST_REDIS_URL through a TCP
relay that records every command the client sends, so the count is what goes
over the wire, whatever the client library does inside. Budget: an
authenticated `/v1` request with its key in the cache makes one round trip (both
windows in one script; the credentials epoch is the database's, limits/credentials.py);
a cache miss makes two (the per-IP window, the lookup, then the per-key window); a
`/v1` request that does not authenticate makes one, anything else none. Every request
counts once in each window it counts in.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
from redis.asyncio import Redis

from gatehouse.limits.credentials import credential_cache
from gatehouse.limits.ratelimit import window_key
from gatehouse.runtime import Runtime
from tests.conftest import make_settings
from tests.support.factories import StaffFixture, make_tenant
from tests.support.probe import probe_app


def _parse_command(buffer: bytearray) -> tuple[str, int] | None:
    """The name of the first complete RESP command in `buffer` and its length."""
    end = buffer.find(b"\r\n")
    if end < 0:
        return None
    if not buffer.startswith(b"*"):  # an inline command
        return bytes(buffer[:end]).split()[0].decode().upper(), end + 2
    position, name = end + 2, ""
    for index in range(int(buffer[1:end])):
        line_end = buffer.find(b"\r\n", position)
        if line_end < 0:
            return None
        assert buffer[position : position + 1] == b"$", "commands are arrays of bulk strings"
        start = line_end + 2
        stop = start + int(buffer[position + 1 : line_end])
        if len(buffer) < stop + 2:
            return None
        if index == 0:
            name = bytes(buffer[start:stop]).decode().upper()
        position = stop + 2
    return name, position


class CountingRelay:
    """A TCP relay to a real Redis that records the name of each command sent."""

    def __init__(self, redis_url: str) -> None:
        parts = urlsplit(redis_url)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 6379)
        self._parts = parts
        self.commands: list[str] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> str:
        """Listen on a free port; return the Redis URL that goes through the relay."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        credentials = self._parts.netloc.rpartition("@")[0]
        netloc = f"{credentials}@127.0.0.1:{port}" if credentials else f"127.0.0.1:{port}"
        return urlunsplit(self._parts._replace(netloc=netloc))

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await task

    def take(self) -> list[str]:
        """The commands recorded since the last call."""
        taken, self.commands = self.commands, []
        return taken

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        for pipe in (self._upstream(reader, up_writer), self._pipe(up_reader, writer)):
            task = asyncio.create_task(pipe)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _upstream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        buffer = bytearray()
        try:
            while data := await reader.read(65536):
                buffer += data
                while (parsed := _parse_command(buffer)) is not None:
                    self.commands.append(parsed[0])
                    del buffer[: parsed[1]]
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()


@pytest.fixture
async def relay(redis_url: str) -> AsyncIterator[CountingRelay]:
    counting = CountingRelay(redis_url)
    yield counting
    await counting.stop()


def test_the_relay_parses_commands_split_across_reads() -> None:
    get = b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
    evalsha = b"*3\r\n$7\r\nEVALSHA\r\n$2\r\nab\r\n$1\r\n1\r\n"
    buffer = bytearray(get + evalsha[:20])
    assert _parse_command(buffer) == ("GET", len(get))
    del buffer[: len(get)]
    assert _parse_command(buffer) is None
    buffer += evalsha[20:] + b"PING\r\n"
    assert _parse_command(buffer) == ("EVALSHA", len(evalsha))
    del buffer[: len(evalsha)]
    assert _parse_command(buffer) == ("PING", 6)


def remaining_of(response: httpx.Response) -> int:
    assert response.status_code == 200, response.text
    return int(response.headers["ratelimit-remaining"])


async def test_round_trips_per_request(
    database_url: str,
    runtime: Runtime,
    relay: CountingRelay,
    staff: StaffFixture,
    redis_url: str,
) -> None:
    tenant = await make_tenant(runtime, with_intake=False)
    settings = make_settings(database_url, redis_url=await relay.start())
    counted = Runtime.build(settings)
    transport = httpx.ASGITransport(app=probe_app(counted), client=("127.0.0.1", 50010))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            # The first request connects and loads the script (once per server).
            assert (await c.get("/v1/probe", headers=tenant.headers)).status_code == 200
            relay.take()

            remaining = [remaining_of(await c.get("/v1/probe", headers=tenant.headers))]
            relay.take()
            for _ in range(3):  # the key is cached: both windows at once
                remaining.append(remaining_of(await c.get("/v1/probe", headers=tenant.headers)))
                assert relay.take() == ["EVALSHA"]

            credential_cache(counted).clear()  # a cache miss: per-IP, lookup, per-key
            remaining.append(remaining_of(await c.get("/v1/probe", headers=tenant.headers)))
            assert credential_cache(counted).get(tenant.key_id) is not None
            assert relay.take() == ["EVALSHA", "EVALSHA"]

            remaining.append(remaining_of(await c.get("/v1/probe", headers=tenant.headers)))
            assert relay.take() == ["EVALSHA"]
            # One count per request in the key's window, whichever way it went.
            assert remaining == list(range(remaining[0], remaining[0] - len(remaining), -1))

            # Requests that never authenticate pay the per-IP round trip only.
            wrong = {"Authorization": f"Bearer service_{tenant.key_id}_{'Z' * 40}"}
            assert (await c.get("/v1/probe", headers=wrong)).status_code == 401
            assert relay.take() == ["EVALSHA"]
            assert (await c.get("/v1/probe")).status_code == 401
            assert relay.take() == ["EVALSHA"]
            assert (await c.get("/v1/nothing", headers=tenant.headers)).status_code == 404
            assert relay.take() == ["EVALSHA"]
            assert (await c.get("/healthz")).status_code == 200
            assert relay.take() == []

            # A revocation costs Redis nothing (the database gives the signal); the next
            # request still makes one round trip (its per-IP window) before its 401.
            revoke = f"/staff/v1/api-keys/{tenant.key_id}/revoke"
            assert (await c.post(revoke, headers=staff.headers)).status_code == 200
            assert relay.take() == []
            assert (await c.get("/v1/probe", headers=tenant.headers)).status_code == 401
            assert relay.take() == ["EVALSHA"]
            # The refused requests spent nothing of the key's window.
            key_window = window_key("key", tenant.key_id, counted.settings.rate_limit_per_key)
            plain = Redis.from_url(redis_url)
            try:
                used = int(await plain.get(key_window) or 0)
            finally:
                await plain.aclose()
            assert used == counted.settings.rate_limit_per_key - remaining[-1]
    finally:
        await counted.close()
