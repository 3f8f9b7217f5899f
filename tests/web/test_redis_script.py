"""The rate-limit script's own Redis client (limits/redis_script.py), against a real Redis:
replies, the database of the URL, NOSCRIPT, errors, a bounded number of connections."""

from __future__ import annotations

import asyncio
import secrets
from urllib.parse import urlsplit, urlunsplit

import coredis
import pytest

from gatehouse.limits import redis_script
from gatehouse.limits.ratelimit import WINDOW_SCRIPT
from gatehouse.limits.redis_script import RedisReplyError, Script, ScriptClient
from tests.support.ports import free_port

WINDOW = Script.of(WINDOW_SCRIPT)


def _with_db(url: str, db: int) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", "", ""))


async def test_the_window_script_counts_and_reads_in_the_urls_database(redis_url: str) -> None:
    url = _with_db(redis_url, 5)
    client = ScriptClient(url)
    plain = coredis.Redis.from_url(url)
    window, extra = f"test:window:{secrets.token_hex(4)}", f"test:extra:{secrets.token_hex(4)}"
    try:
        assert await client.run(WINDOW, [window], [60_000]) == [1, 60_000]
        count, ttl = await client.run(WINDOW, [window], [60_000])
        assert count == 2
        assert 0 < ttl <= 60_000
        assert await plain.get(window) == b"2"  # the database named in the URL
    finally:
        await plain.delete([window, extra])
        await client.close()


async def test_an_unknown_script_is_loaded_again(redis_url: str) -> None:
    client = ScriptClient(redis_url)
    plain = coredis.Redis.from_url(redis_url)
    window = f"test:window:{secrets.token_hex(4)}"
    try:
        assert (await client.run(WINDOW, [window], [60_000]))[0] == 1
        await plain.script_flush()
        assert (await client.run(WINDOW, [window], [60_000]))[0] == 2
    finally:
        await plain.delete([window])
        await client.close()


async def test_an_error_reply_is_raised_and_the_connection_stays_usable(redis_url: str) -> None:
    client = ScriptClient(redis_url, max_connections=1)
    plain = coredis.Redis.from_url(redis_url)
    wrong, window = f"test:hash:{secrets.token_hex(4)}", f"test:window:{secrets.token_hex(4)}"
    try:
        await plain.hset(wrong, {"a": "b"})
        with pytest.raises(RedisReplyError, match="WRONGTYPE"):
            await client.run(WINDOW, [wrong], [60_000])
        assert (await client.run(WINDOW, [window], [60_000]))[0] == 1
    finally:
        await plain.delete([wrong, window])
        await client.close()


async def test_concurrent_calls_share_a_bounded_number_of_connections(redis_url: str) -> None:
    client = ScriptClient(redis_url, max_connections=3)
    plain = coredis.Redis.from_url(redis_url)
    window = f"test:window:{secrets.token_hex(4)}"
    try:
        replies = await asyncio.gather(*(client.run(WINDOW, [window], [60_000]) for _ in range(50)))
        assert sorted(reply[0] for reply in replies) == list(range(1, 51))
        assert client.idle_connections <= 3
    finally:
        await plain.delete([window])
        await client.close()


async def test_an_unreachable_server_raises() -> None:
    client = ScriptClient(f"redis://127.0.0.1:{free_port()}/0")
    with pytest.raises(ConnectionRefusedError):  # nothing listens on that port
        await client.run(WINDOW, ["test:window"], [60_000])
    await client.close()


def test_only_plain_redis_urls_are_taken() -> None:
    assert ScriptClient.supports("redis://localhost:6379/0")
    assert ScriptClient.supports("rediss://user:pw@localhost:6380/1")
    assert not ScriptClient.supports("unix:///run/redis.sock")
    # Options in the query (certificates, timeouts, protocol) are coredis's to read.
    assert not ScriptClient.supports("rediss://localhost:6380/0?ssl_cert_reqs=none")
    assert not ScriptClient.supports("redis://localhost:6379/name")
    with pytest.raises(ValueError, match="scheme"):
        ScriptClient("unix:///run/redis.sock")


async def test_an_error_inside_an_array_reply_is_read_whole(redis_url: str) -> None:
    """A script may answer an array holding an error: it is raised once the whole reply
    has been read, so the connection stays in step for the next command."""
    failing = Script.of("return {1, redis.error_reply('BOOM inside'), 3}")
    client = ScriptClient(redis_url, max_connections=1)
    window = f"test:window:{secrets.token_hex(4)}"
    plain = coredis.Redis.from_url(redis_url)
    try:
        with pytest.raises(RedisReplyError, match="BOOM inside"):
            await client.run(failing, [], [])
        assert client.idle_connections == 1
        assert await client.run(WINDOW, [window], [60_000]) == [1, 60_000]
    finally:
        await plain.delete([window])
        await client.close()


async def _kill_connections_of(plain: coredis.Redis[bytes], client: ScriptClient) -> int:
    """Have the server close the client's kept connections (as a restart or its idle
    `timeout` would); how many it closed."""
    killed = 0
    for connection in list(client._idle):
        host, port = connection.writer.get_extra_info("sockname")[:2]
        killed += int(bool(await plain.client_kill(addr=f"{host}:{port}")))
    return killed


async def test_connections_the_server_closed_are_replaced_and_the_command_runs_once(
    redis_url: str,
) -> None:
    client = ScriptClient(redis_url, max_connections=4)
    plain = coredis.Redis.from_url(redis_url)
    window = f"test:window:{secrets.token_hex(4)}"
    try:
        # Three kept connections, all closed by the server while idle.
        replies = await asyncio.gather(*(client.run(WINDOW, [window], [60_000]) for _ in range(3)))
        assert sorted(r[0] for r in replies) == [1, 2, 3]
        assert client.idle_connections == 3
        assert await _kill_connections_of(plain, client) == 3
        await asyncio.sleep(0.05)
        # The next call meets a closed one, sends again on a new one, drops the others.
        assert (await client.run(WINDOW, [window], [60_000]))[0] == 4
        assert client.idle_connections == 1
        assert (await client.run(WINDOW, [window], [60_000]))[0] == 5
        assert await plain.get(window) == b"5"  # every call counted exactly once
    finally:
        await plain.delete([window])
        await client.close()


async def test_a_server_that_does_not_answer_times_out_and_the_connection_is_dropped(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relay to the real Redis that stops passing replies on (a stalled network; making
    the shared Redis itself busy would stall every other user of it)."""
    monkeypatch.setattr(redis_script, "TIMEOUT_SECONDS", 0.3)
    parts = urlsplit(redis_url)
    stalled = asyncio.Event()
    pipes: set[asyncio.Task[None]] = set()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, up: bool) -> None:
        while data := await reader.read(65536):
            if not up and stalled.is_set():
                continue
            writer.write(data)
            await writer.drain()
        writer.close()

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream = await asyncio.open_connection(parts.hostname, parts.port or 6379)
        for task in (pipe(reader, upstream[1], True), pipe(upstream[0], writer, False)):
            pipes.add(asyncio.create_task(task))

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = ScriptClient(urlunsplit(parts._replace(netloc=f"127.0.0.1:{port}")), 1)
    window = f"test:window:{secrets.token_hex(4)}"
    plain = coredis.Redis.from_url(redis_url)
    try:
        assert (await client.run(WINDOW, [window], [60_000]))[0] == 1
        stalled.set()
        with pytest.raises(TimeoutError):
            await client.run(WINDOW, [window], [60_000])
        assert client.idle_connections == 0  # its reply may still come: never reused
        stalled.clear()
        assert (await client.run(WINDOW, [window], [60_000]))[0] == 3  # on a new connection
    finally:
        await plain.delete([window])
        await client.close()
        server.close()
        for task in pipes:
            task.cancel()


async def test_a_reply_that_does_not_parse_closes_the_connection() -> None:
    """Not Redis: a server that answers anything else. The call fails (the limiter then
    serves the request unlimited) and the connection is not kept."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1024)
        writer.write(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        await writer.drain()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = ScriptClient(f"redis://127.0.0.1:{port}/0")
    try:
        with pytest.raises(ConnectionError, match="unexpected reply"):
            await client.run(WINDOW, ["test:window"], [60_000])
        assert client.idle_connections == 0
    finally:
        await client.close()
        server.close()


async def test_a_closed_client_refuses_and_keeps_nothing(redis_url: str) -> None:
    client = ScriptClient(redis_url)
    window = f"test:window:{secrets.token_hex(4)}"
    plain = coredis.Redis.from_url(redis_url)
    try:
        running = asyncio.create_task(client.run(WINDOW, [window], [60_000]))
        await asyncio.sleep(0)
        await client.close()
        assert (await running)[0] == 1  # the call in flight ends
        assert client.idle_connections == 0  # and its connection is closed, not kept
        with pytest.raises(ConnectionError, match="closed"):
            await client.run(WINDOW, [window], [60_000])
    finally:
        await plain.delete([window])
