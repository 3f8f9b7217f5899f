"""Fixed-window rate limits (docs/reference/tenant-api.md §4.5), one Redis round trip per check.

Each limit is a fixed window per minute that starts with its first hit: the
per-IP one (checked by the edge before routing and authentication,
tenant-api.md §4.1 step 1) and the per-key one (after authentication, step 5). Windows live in
process memory by default and in Redis when GATEHOUSE_REDIS_URL is set, so that
several processes share one budget.

Why two round trips per `/v1` request with Redis, and not one: the
per-IP check must refuse before routing and authentication, with its own 429,
while the per-key window may count only a request that authenticated on a
matched route (a 404, or a wrong secret next to a real key id, must not burn
that key's budget; key ids are not secret, they are part of the key string).
So the two cannot share a round trip without changing behaviour. What can be
merged is the credentials epoch of the API-key cache (http/key_cache.py): it
must be read before the key lookup, and reading it earlier is just as safe, so
the per-IP script returns it and the edge hands it to authentication. Each
check is one EVALSHA of `WINDOW_SCRIPT` (INCR, expiry set when the window is
new, the window's remaining time, and optionally one more key read), sent over
plain connections by `ScriptClient` (limits/redis_script.py), which loads it again
when the server answers NOSCRIPT. Before, over the `limits` library,
the per-IP hit, the per-key hit, its window stats (GET and TTL) and the epoch
GET made five; `limits` has no way to add a read to a hit, hence this module.

Keys keep the names `limits` gave them (`LIMITS:key/<key id>/60/1/minute`), so
windows carry over an upgrade. The two keys of the per-IP script need not share
a hash slot, so Redis Cluster is not supported (the key cache's plain client
never supported it either).

Without Redis the windows are two dictionaries of this process, swept once a
window: a hit is a dictionary lookup, where `limits`' memory storage took a
lock and scheduled a task on every hit.

When Redis cannot be reached a request is served unlimited, without the per-key
headers, and one warning per `FAILURE_LOG_INTERVAL` is logged.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from gatehouse.limits.credentials import EPOCH_NOT_READ, EPOCH_UNREADABLE, REDIS_EPOCH_KEY
from gatehouse.limits.redis_script import ScriptClient
from gatehouse.settings import Settings

log = logging.getLogger("gatehouse.ratelimit")
FAILURE_LOG_INTERVAL = 10.0
WINDOW_SECONDS = 60
WINDOW_NS = WINDOW_SECONDS * 1_000_000_000
KEY_PREFIX = "LIMITS:"

# KEYS[1]: the window; KEYS[2] (optional): a key to read in the same round trip.
# ARGV[1]: the window length in milliseconds. Returns {count, remaining ms, value}.
# A window without expiry (a crash between INCR and EXPIRE of an older client)
# gets one here instead of lasting forever.
WINDOW_SCRIPT = """
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  ttl = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
end
local extra = ''
if KEYS[2] then
  extra = redis.call('GET', KEYS[2]) or ''
end
return {count, ttl, extra}
"""


@dataclass(frozen=True, slots=True)
class Window:
    """The outcome of one hit: the RateLimit-* header values."""

    allowed: bool
    limit: int
    remaining: int
    reset_seconds: int

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
        }


@dataclass(frozen=True, slots=True)
class AddressCheck:
    """The per-IP verdict, and the credentials epoch read in the same round trip.

    `credentials_epoch` is what Redis holds under the epoch key (bytes or None),
    `EPOCH_UNREADABLE` when Redis failed, `EPOCH_NOT_READ` without Redis (the key
    cache then reads its stamp file itself).
    """

    allowed: bool
    credentials_epoch: object


def window_key(namespace: str, identifier: str, limit: int) -> str:
    """The Redis key of a one-minute window, named as the `limits` library names it."""
    return f"{KEY_PREFIX}{namespace}/{identifier}/{limit}/1/minute"


class MemoryWindows:
    """Fixed windows of one limit in this process: identifier -> [count, deadline ns].

    Integer nanoseconds, so a new window reads exactly `WINDOW_SECONDS` (float
    arithmetic made it 60.000000001, shown as 61).
    """

    def __init__(self) -> None:
        self._windows: dict[str, list[int]] = {}
        self._next_sweep = 0

    def hit(self, identifier: str) -> tuple[int, int]:
        """Count one hit; return the window's count and its remaining milliseconds."""
        now = time.monotonic_ns()
        if now >= self._next_sweep:
            self._sweep(now)
        window = self._windows.get(identifier)
        if window is None or window[1] <= now:
            window = self._windows[identifier] = [0, now + WINDOW_NS]
        window[0] += 1
        return window[0], -(-(window[1] - now) // 1_000_000)

    def _sweep(self, now: int) -> None:
        # Addresses come and go: drop ended windows once a window, not on every hit.
        self._windows = {k: w for k, w in self._windows.items() if w[1] > now}
        self._next_sweep = now + WINDOW_NS

    def clear(self) -> None:
        self._windows.clear()


class RedisWindows:
    """Windows in Redis, one EVALSHA per hit (see the module docstring)."""

    def __init__(self, url: str) -> None:
        import coredis

        url = url.removeprefix("async+")
        self.client: Any = coredis.Redis.from_url(url)
        # The hits themselves go over plain connections (limits/redis_script.py); coredis
        # keeps the rest (clearing windows) and URLs that client does not handle.
        self._fast = ScriptClient(url, WINDOW_SCRIPT) if ScriptClient.supports(url) else None
        self._script: Any = self.client.register_script(WINDOW_SCRIPT)
        self._window_ms = WINDOW_SECONDS * 1000

    async def hit(self, key: str, read_also: str | None = None) -> tuple[int, int, bytes]:
        """Count one hit of `key`: (count, remaining ms, value of `read_also` or b"")."""
        keys = [key] if read_also is None else [key, read_also]
        if self._fast is not None:
            count, ttl_ms, extra = await self._fast.run(keys, [self._window_ms])
        else:
            count, ttl_ms, extra = await self._script(keys, [self._window_ms])
        return int(count), int(ttl_ms), extra

    async def clear(self) -> None:
        keys = [k async for k in self.client.scan_iter(match=KEY_PREFIX + "*")]
        if keys:
            await self.client.delete(keys)

    async def close(self) -> None:
        if self._fast is not None:
            await self._fast.close()
        self.client.connection_pool.disconnect()


class RateLimits:
    def __init__(self, settings: Settings) -> None:
        self.per_key_limit = settings.rate_limit_per_key
        self.per_ip_limit = settings.rate_limit_per_ip
        self.sign_in_per_ip_limit = settings.sign_in_limit_per_ip
        self.redis = RedisWindows(settings.redis_url) if settings.redis_url else None
        self._ip_windows = MemoryWindows()
        self._key_windows = MemoryWindows()
        self._sign_in_windows = MemoryWindows()
        self._last_failure_log = -FAILURE_LOG_INTERVAL

    async def hit_ip(self, address: str) -> AddressCheck:
        """Whether the source address may go on (tenant-api.md §4.5, before authentication).

        With Redis the same round trip reads the credentials epoch. When the
        storage cannot be reached the request goes on, and the epoch is unreadable.
        """
        if self.redis is None:
            count, _ = self._ip_windows.hit(address)
            return AddressCheck(count <= self.per_ip_limit, EPOCH_NOT_READ)
        try:
            count, _, epoch = await self.redis.hit(
                window_key("ip", address, self.per_ip_limit), REDIS_EPOCH_KEY
            )
        except Exception:
            self._storage_failed()
            return AddressCheck(True, EPOCH_UNREADABLE)
        # The script answers b"" for a missing epoch; a plain GET answers None.
        return AddressCheck(count <= self.per_ip_limit, epoch or None)

    async def hit_key(self, key_id: str) -> Window | None:
        """Count one request of the key; None when no window could be read.

        Spec 1 §8: a request whose limiter window could not be read is served
        without the per-key headers (absence does not mean unlimited).
        """
        return await self._hit(self._key_windows, "key", key_id, self.per_key_limit)

    async def hit_sign_in(self, address: str) -> Window | None:
        """Count one dashboard sign-in attempt from a source address (docs/staff-identity.md
        "Lockout and limits"); None when no window could be read (the attempt goes on)."""
        return await self._hit(self._sign_in_windows, "sign-in", address, self.sign_in_per_ip_limit)

    async def _hit(
        self, windows: MemoryWindows, namespace: str, identifier: str, limit: int
    ) -> Window | None:
        if self.redis is None:
            count, ms_left = windows.hit(identifier)
        else:
            try:
                count, ms_left, _ = await self.redis.hit(window_key(namespace, identifier, limit))
            except Exception:
                self._storage_failed()
                return None
        reset = max(1, -(-ms_left // 1000))  # whole seconds, rounded up
        return Window(count <= limit, limit, max(0, limit - count), reset)

    def _storage_failed(self) -> None:
        # One warning per interval: an unreachable Redis must not flood the log.
        now = time.monotonic()
        if now - self._last_failure_log >= FAILURE_LOG_INTERVAL:
            self._last_failure_log = now
            log.warning("rate-limit storage unavailable; requests are served unlimited")

    async def reset(self) -> None:
        """Forget every window (all of them, in every process, with Redis)."""
        self._ip_windows.clear()
        self._key_windows.clear()
        self._sign_in_windows.clear()
        if self.redis is not None:
            await self.redis.clear()

    async def close(self) -> None:
        if self.redis is not None:
            await self.redis.close()
