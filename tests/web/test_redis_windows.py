"""The rate-limit windows on redis-py (limits/redis_client.py, limits/ratelimit.py), against
the real Redis of GATEHOUSE_TEST_REDIS_URL: the scripts' replies, loading a script again
after the server forgot it, the database the URL names, a server that went away, and which
client each URL form makes."""

from __future__ import annotations

import asyncio
import secrets
from urllib.parse import urlsplit, urlunsplit

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from gatehouse.limits import redis_client as redis_client_module
from gatehouse.limits.ratelimit import HASH_TAG, RedisWindows, window_key
from gatehouse.limits.redis_client import redis_client


def _with_db(url: str, db: int) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{db}"))


def _keys() -> tuple[str, str]:
    tag = secrets.token_hex(4)
    return window_key("ip", f"test-{tag}", 5), window_key("key", f"test-{tag}", 5)


async def test_the_window_counts_in_the_urls_database(redis_url: str) -> None:
    url = _with_db(redis_url, 5)
    windows = RedisWindows(url)
    plain = Redis.from_url(url)
    ip_key, _ = _keys()
    try:
        count, ttl = await windows.hit(ip_key)
        assert count == 1
        assert ttl == 60_000
        count, ttl = await windows.hit(ip_key)
        assert count == 2
        assert 0 < ttl <= 60_000
        assert await plain.get(ip_key) == b"2"  # the database named in the URL
    finally:
        await plain.delete(ip_key)
        await plain.aclose()
        await windows.close()


async def test_both_windows_count_the_key_only_within_the_address_limit(redis_url: str) -> None:
    windows = RedisWindows(redis_url)
    ip_key, key_key = _keys()
    try:
        assert (await windows.hit_both(ip_key, 2, key_key))[:2] == (1, 1)
        assert (await windows.hit_both(ip_key, 2, key_key))[:2] == (2, 2)
        ip_count, key_count, key_ms = await windows.hit_both(ip_key, 2, key_key)
        assert (ip_count, key_count, key_ms) == (3, -1, -1)  # over the address limit
        count, _ = await windows.hit(key_key)
        assert count == 3  # the refused request did not count for the key
    finally:
        await windows.client.delete(ip_key, key_key)
        await windows.close()


async def test_a_script_the_server_forgot_is_loaded_again(redis_url: str) -> None:
    windows = RedisWindows(redis_url)
    plain = Redis.from_url(redis_url)
    ip_key, _ = _keys()
    try:
        assert (await windows.hit(ip_key))[0] == 1
        await plain.script_flush()
        assert (await windows.hit(ip_key))[0] == 2
    finally:
        await plain.delete(ip_key)
        await plain.aclose()
        await windows.close()


async def test_a_server_that_cannot_be_reached_raises(redis_url: str) -> None:
    windows = RedisWindows("redis://127.0.0.1:1/0")
    try:
        with pytest.raises(Exception, match=r"(?i)connect|refused"):
            await windows.hit(window_key("ip", "nobody", 5))
    finally:
        await windows.close()


async def test_connections_the_server_closed_are_replaced(redis_url: str) -> None:
    windows = RedisWindows(redis_url)
    plain = Redis.from_url(redis_url)
    ip_key, _ = _keys()
    try:
        assert (await windows.hit(ip_key))[0] == 1
        name = f"gh-test-{secrets.token_hex(3)}"
        await windows.client.client_setname(name)
        clients = await plain.client_list()
        for client in clients:
            if client.get("name") == name:
                await plain.client_kill_filter(_id=client["id"])
        assert (await windows.hit(ip_key))[0] == 2  # retried on a new connection
    finally:
        await plain.delete(ip_key)
        await plain.aclose()
        await windows.close()


def test_every_window_key_carries_the_one_hash_tag() -> None:
    ip_key, key_key = _keys()
    for key in (ip_key, key_key, window_key("sign-in", "198.51.100.7", 10)):
        assert key.startswith(f"LIMITS:{HASH_TAG}")
        assert key.count("{") == 1  # the first {...} decides the Cluster slot


def test_the_url_chooses_the_deployment() -> None:
    """Construction only: nothing connects until the first command."""
    single = redis_client("redis://:pw@127.0.0.1:6390/3")
    assert isinstance(single, Redis)
    assert single.connection_pool.connection_kwargs["db"] == 3
    cluster = redis_client("redis+cluster://127.0.0.1:7000")
    assert isinstance(cluster, RedisCluster)
    primary = redis_client("redis+sentinel://:pw@10.0.0.1:26379,10.0.0.2/gatehouse/2")
    assert isinstance(primary, Redis)
    pool = primary.connection_pool
    assert pool.service_name == "gatehouse"  # type: ignore[attr-defined]
    assert pool.connection_kwargs["db"] == 2
    with pytest.raises(ValueError, match="service"):
        redis_client("redis+sentinel://10.0.0.1:26379")


async def test_a_call_beyond_the_pool_fails_at_once(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No wait for a free connection: the limiter serves that request unlimited."""
    monkeypatch.setattr(redis_client_module, "MAX_CONNECTIONS", 1)
    windows = RedisWindows(redis_url)
    ip_key, _ = _keys()
    try:
        outcomes = await asyncio.gather(
            windows.hit(ip_key), windows.hit(ip_key), return_exceptions=True
        )
        assert sum(isinstance(o, tuple) for o in outcomes) == 1
        assert any("Too many connections" in str(o) for o in outcomes)
        assert (await windows.hit(ip_key))[0] == 2  # the connection is free again
    finally:
        await windows.client.delete(ip_key)
        await windows.close()
