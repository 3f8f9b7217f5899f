"""Fixed-window rate limits of spec 1 §8 over the `limits` library.

Windows live in process memory by default and in Redis when
GATEHOUSE_REDIS_URL is set, so that several processes share one budget.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

from limits import RateLimitItemPerMinute
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import FixedWindowRateLimiter
from limits.storage import storage_from_string

from gatehouse.settings import Settings

log = logging.getLogger("gatehouse.ratelimit")
FAILURE_LOG_INTERVAL = 10.0


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


class RateLimits:
    def __init__(self, settings: Settings) -> None:
        self.storage: Storage
        if settings.redis_url:
            url = settings.redis_url
            if url.startswith("redis://") or url.startswith("rediss://"):
                url = "async+" + url
            storage = storage_from_string(url)
            if not isinstance(storage, Storage):
                raise ValueError("GATEHOUSE_REDIS_URL must name an async-capable Redis storage")
            self.storage = storage
        else:
            self.storage = MemoryStorage()
        self._limiter = FixedWindowRateLimiter(self.storage)
        self._last_failure_log = -FAILURE_LOG_INTERVAL
        self.per_key = RateLimitItemPerMinute(settings.rate_limit_per_key, namespace="key")
        self.per_ip = RateLimitItemPerMinute(settings.rate_limit_per_ip, namespace="ip")

    async def hit_ip(self, address: str) -> bool:
        """True when the source address may go on (spec 1 §8, before authentication).

        When the limiter's storage cannot be reached the request goes on.
        """
        try:
            return await self._limiter.hit(self.per_ip, address)
        except Exception:
            self._storage_failed()
            return True

    async def hit_key(self, key_id: str) -> Window | None:
        """Count one request of the key; None when no window could be read.

        Spec 1 §8: a request whose limiter window could not be read is served
        without the per-key headers (absence does not mean unlimited).
        """
        try:
            allowed = await self._limiter.hit(self.per_key, key_id)
            stats = await self._limiter.get_window_stats(self.per_key, key_id)
        except Exception:
            self._storage_failed()
            return None
        reset = max(1, math.ceil(stats.reset_time - time.time()))
        return Window(allowed, self.per_key.amount, max(0, stats.remaining), reset)

    def _storage_failed(self) -> None:
        # One warning per interval: an unreachable Redis must not flood the log.
        now = time.monotonic()
        if now - self._last_failure_log >= FAILURE_LOG_INTERVAL:
            self._last_failure_log = now
            log.warning("rate-limit storage unavailable; requests are served unlimited")

    async def reset(self) -> None:
        await self.storage.reset()

    async def close(self) -> None:
        return None
