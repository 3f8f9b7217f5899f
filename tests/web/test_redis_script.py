"""The rate-limit script's own Redis client (limits/redis_script.py), against a real Redis:
replies, the database of the URL, NOSCRIPT, errors, a bounded number of connections."""

from __future__ import annotations

import asyncio
import secrets
from urllib.parse import urlsplit, urlunsplit

import coredis
import pytest

from gatehouse.limits.ratelimit import WINDOW_SCRIPT
from gatehouse.limits.redis_script import RedisReplyError, ScriptClient
from tests.support.live import free_port


def _with_db(url: str, db: int) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", "", ""))


async def test_the_window_script_counts_and_reads_in_the_urls_database(redis_url: str) -> None:
    url = _with_db(redis_url, 5)
    client = ScriptClient(url, WINDOW_SCRIPT)
    plain = coredis.Redis.from_url(url)
    window, extra = f"test:window:{secrets.token_hex(4)}", f"test:extra:{secrets.token_hex(4)}"
    try:
        assert await client.run([window], [60_000]) == [1, 60_000, b""]
        await plain.set(extra, "epoch-7")
        count, ttl, value = await client.run([window, extra], [60_000])
        assert count == 2
        assert 0 < ttl <= 60_000
        assert value == b"epoch-7"
        assert await plain.get(window) == b"2"  # the database named in the URL
    finally:
        await plain.delete([window, extra])
        await client.close()


async def test_an_unknown_script_is_loaded_again(redis_url: str) -> None:
    client = ScriptClient(redis_url, WINDOW_SCRIPT)
    plain = coredis.Redis.from_url(redis_url)
    window = f"test:window:{secrets.token_hex(4)}"
    try:
        assert (await client.run([window], [60_000]))[0] == 1
        await plain.script_flush()
        assert (await client.run([window], [60_000]))[0] == 2
    finally:
        await plain.delete([window])
        await client.close()


async def test_an_error_reply_is_raised_and_the_connection_stays_usable(redis_url: str) -> None:
    client = ScriptClient(redis_url, WINDOW_SCRIPT, max_connections=1)
    plain = coredis.Redis.from_url(redis_url)
    wrong, window = f"test:hash:{secrets.token_hex(4)}", f"test:window:{secrets.token_hex(4)}"
    try:
        await plain.hset(wrong, {"a": "b"})
        with pytest.raises(RedisReplyError, match="WRONGTYPE"):
            await client.run([wrong], [60_000])
        assert (await client.run([window], [60_000]))[0] == 1
    finally:
        await plain.delete([wrong, window])
        await client.close()


async def test_concurrent_calls_share_a_bounded_number_of_connections(redis_url: str) -> None:
    client = ScriptClient(redis_url, WINDOW_SCRIPT, max_connections=3)
    plain = coredis.Redis.from_url(redis_url)
    window = f"test:window:{secrets.token_hex(4)}"
    try:
        replies = await asyncio.gather(*(client.run([window], [60_000]) for _ in range(50)))
        assert sorted(reply[0] for reply in replies) == list(range(1, 51))
        assert len(client._idle) <= 3
    finally:
        await plain.delete([window])
        await client.close()


async def test_an_unreachable_server_raises() -> None:
    client = ScriptClient(f"redis://127.0.0.1:{free_port()}/0", WINDOW_SCRIPT)
    with pytest.raises(ConnectionRefusedError):  # nothing listens on that port
        await client.run(["test:window"], [60_000])
    await client.close()


def test_only_plain_redis_urls_are_taken() -> None:
    assert ScriptClient.supports("redis://localhost:6379/0")
    assert ScriptClient.supports("rediss://user:pw@localhost:6380/1")
    assert not ScriptClient.supports("unix:///run/redis.sock")
    with pytest.raises(ValueError, match="scheme"):
        ScriptClient("unix:///run/redis.sock", WINDOW_SCRIPT)
