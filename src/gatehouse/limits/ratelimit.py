"""Fixed-window rate limits (docs/reference/tenant-api.md §4.5): one Redis round trip per request.

Each limit is a fixed window per minute that starts with its first hit: the
per-IP one (docs/reference/tenant-api.md §4.1 step 1, before routing and authentication) and the
per-key one (after authentication, step 5). Windows live in process memory by default
and in Redis when GATEHOUSE_REDIS_URL is set, so that several processes share one budget.

With Redis, an authenticated `/v1` request makes one round trip, in which both windows
are counted. The two checks keep their order and meaning:

- the per-IP window is counted for every `/v1` request, and a request over it is
  answered the per-IP 429 whatever else it would have got (a 404, a 401, a 400);
- the per-key window counts only a request that authenticated on a matched route (a
  404, or a wrong secret next to a real key id, must not burn that key's budget: key ids
  are not secret), and only when the per-IP window let it through.

So the edge does not count the per-IP window up front: it leaves an `AddressGate` in the
request state. Authentication, when the key is in the API-key cache (limits/credentials.py,
which has checked the credentials epoch itself) and the presented secret verifies against
it, runs `ADDRESS_AND_KEY_SCRIPT` through the gate: per-IP INCR, then, if that passed, the
per-key INCR, in one atomic script. In every other case (a cache miss, a wrong secret, a
request that never reaches authentication) the gate counts the per-IP window alone
(`WINDOW_SCRIPT`) before the key lookup or, at the latest, before the edge sends the
answer, which it replaces with the per-IP 429 when the window is full; the per-key window
then takes a round trip of its own after a database lookup, as before. Scripts run
through redis-py's `register_script` (EVALSHA; EVAL again when the server answers
NOSCRIPT) on the process's one client (limits/redis_client.py: one server, Sentinel or
Cluster, by URL).

Keys follow the names `limits` gives (`LIMITS:{gatehouse}key/<key id>/60/1/minute`),
with one hash tag, `{gatehouse}`, so that the two keys of `ADDRESS_AND_KEY_SCRIPT` share
a slot on a Redis Cluster (every window then lives on one node of it: a window is a few
bytes and one INCR).

Without Redis the windows are dictionaries of this process, swept once a window, and
the edge counts the per-IP window up front (a dictionary lookup).

When Redis cannot be reached a request is served unlimited, without the per-key
headers, and one warning per `FAILURE_LOG_INTERVAL` is logged.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from gatehouse.limits.redis_client import close_client, redis_client
from gatehouse.settings import Settings

log = logging.getLogger("gatehouse.ratelimit")
FAILURE_LOG_INTERVAL = 10.0
WINDOW_SECONDS = 60
WINDOW_NS = WINDOW_SECONDS * 1_000_000_000
KEY_PREFIX = "LIMITS:"
# One hash tag on every window: a script's keys share a slot on a Redis Cluster.
HASH_TAG = "{gatehouse}"

# KEYS[1]: the window. ARGV[1]: the window length in milliseconds.
# Returns {count, remaining ms}. A window without expiry (a crash between INCR and
# EXPIRE of an older client) gets one here instead of lasting forever.
WINDOW_SCRIPT = """
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  ttl = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return {count, ttl}
"""

# KEYS[1]: the per-IP window; KEYS[2]: the per-key window. ARGV[1]: the window length in
# milliseconds; ARGV[2]: the per-IP limit. The per-key window is counted only when the
# per-IP one let the request through; then the reply is {ip count, ip ms left, key count,
# key ms left}, else the last two are -1.
ADDRESS_AND_KEY_SCRIPT = """
local function hit(key)
  local count = redis.call('INCR', key)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    ttl = tonumber(ARGV[1])
    redis.call('PEXPIRE', key, ttl)
  end
  return count, ttl
end
local ip_count, ip_ttl = hit(KEYS[1])
if ip_count > tonumber(ARGV[2]) then
  return {ip_count, ip_ttl, -1, -1}
end
local key_count, key_ttl = hit(KEYS[2])
return {ip_count, ip_ttl, key_count, key_ttl}
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

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """`headers()` as an ASGI answer carries them (lower-case names, bytes)."""
        return [
            (b"ratelimit-limit", b"%d" % self.limit),
            (b"ratelimit-remaining", b"%d" % self.remaining),
            (b"ratelimit-reset", b"%d" % self.reset_seconds),
        ]


@dataclass(frozen=True, slots=True)
class AddressCheck:
    """The per-IP verdict (True also when the window could not be read)."""

    allowed: bool


@dataclass(frozen=True, slots=True)
class AddressAndKey:
    """Both windows of an authenticated request in one round trip (`ADDRESS_AND_KEY_SCRIPT`).

    `key` is the per-key window when it was counted: the per-IP window let the request
    through. None otherwise (nothing was counted for the key), and when Redis failed.
    """

    address: AddressCheck
    key: Window | None


class AddressGate:
    """The per-IP check of one `/v1` request with Redis, made once and when first needed.

    The edge leaves it in the request state (`ADDRESS_GATE`); authentication decides it
    (with the per-key window when it can, `decide_with_key`), and the edge decides it
    before it sends any answer of a request that never got that far (`decide`).
    """

    __slots__ = ("_limits", "address", "result")

    def __init__(self, limits: RateLimits, address: str) -> None:
        self._limits = limits
        self.address = address
        self.result: AddressCheck | None = None

    async def decide(self) -> AddressCheck:
        """Count the per-IP window (once)."""
        if self.result is None:
            self.result = await self._limits.hit_ip(self.address)
        return self.result

    async def decide_with_key(self, key_id: str) -> AddressAndKey:
        """Count the per-IP window, and the key's if the per-IP one let the request through."""
        if self.result is not None:
            raise RuntimeError("the per-IP window of this request was counted already")
        outcome = await self._limits.hit_address_and_key(self.address, key_id)
        self.result = outcome.address
        return outcome


# The request-state entry where the edge leaves a request's `AddressGate`.
ADDRESS_GATE = "address_gate"


def window_key(namespace: str, identifier: str, limit: int) -> str:
    """The Redis key of a one-minute window, named as the `limits` library names it, with
    the hash tag after the prefix."""
    return f"{KEY_PREFIX}{HASH_TAG}{namespace}/{identifier}/{limit}/1/minute"


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
        self.client: Any = redis_client(url)
        # redis-py's scripts: EVALSHA, and EVAL again when the server answers NOSCRIPT.
        self._window = self.client.register_script(WINDOW_SCRIPT)
        self._address_and_key = self.client.register_script(ADDRESS_AND_KEY_SCRIPT)
        self._window_ms = WINDOW_SECONDS * 1000

    async def hit(self, key: str) -> tuple[int, int]:
        """Count one hit of `key`: (count, remaining ms)."""
        count, ttl_ms = await self._window(keys=[key], args=[self._window_ms])
        return int(count), int(ttl_ms)

    async def hit_both(self, ip_key: str, ip_limit: int, key_key: str) -> tuple[int, int, int]:
        """`ADDRESS_AND_KEY_SCRIPT`: (ip count, key count, key ms left)."""
        ip_count, _, key_count, key_ms = await self._address_and_key(
            keys=[ip_key, key_key], args=[self._window_ms, ip_limit]
        )
        return int(ip_count), int(key_count), int(key_ms)

    async def clear(self) -> None:
        keys = [k async for k in self.client.scan_iter(match=KEY_PREFIX + "*")]
        if keys:
            await self.client.delete(*keys)

    async def close(self) -> None:
        await close_client(self.client)


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
        """Whether the source address may go on
        (docs/reference/tenant-api.md §4.5, before authentication).

        When the storage cannot be reached the request goes on.
        """
        if self.redis is None:
            count, _ = self._ip_windows.hit(address)
            return AddressCheck(count <= self.per_ip_limit)
        try:
            count, _ = await self.redis.hit(window_key("ip", address, self.per_ip_limit))
        except Exception:
            self._storage_failed()
            return AddressCheck(True)
        return AddressCheck(count <= self.per_ip_limit)

    async def hit_address_and_key(self, address: str, key_id: str) -> AddressAndKey:
        """Both windows in one round trip (Redis only; see the module docstring)."""
        if self.redis is None:
            raise RuntimeError("both windows at once is for Redis windows")
        try:
            ip_count, key_count, key_ms = await self.redis.hit_both(
                window_key("ip", address, self.per_ip_limit),
                self.per_ip_limit,
                window_key("key", key_id, self.per_key_limit),
            )
        except Exception:
            self._storage_failed()
            return AddressAndKey(AddressCheck(True), None)
        address_check = AddressCheck(ip_count <= self.per_ip_limit)
        if key_count < 0:
            return AddressAndKey(address_check, None)
        return AddressAndKey(address_check, self._window(key_count, key_ms, self.per_key_limit))

    async def hit_key(self, key_id: str) -> Window | None:
        """Count one request of the key; None when no window could be read.

        docs/reference/tenant-api.md §4.5: a request whose limiter window could not be read
        is served without the per-key headers (absence does not mean unlimited).
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
                count, ms_left = await self.redis.hit(window_key(namespace, identifier, limit))
            except Exception:
                self._storage_failed()
                return None
        return self._window(count, ms_left, limit)

    @staticmethod
    def _window(count: int, ms_left: int, limit: int) -> Window:
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
