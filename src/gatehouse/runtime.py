"""What every request and worker shares: settings, database, crypto, limits, clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from gatehouse.crypto import Crypto
from gatehouse.http.ratelimit import RateLimits
from gatehouse.settings import Settings
from gatehouse.storage.db import Database
from gatehouse.timeutil import utcnow


@dataclass
class Runtime:
    settings: Settings
    db: Database
    crypto: Crypto
    limits: RateLimits
    # Tests replace the clock to move time (expiry sweeps, link lifetimes).
    clock: Callable[[], datetime] = field(default=utcnow)

    @classmethod
    def build(cls, settings: Settings) -> Runtime:
        return cls(
            settings=settings,
            db=Database(settings.database_url),
            crypto=Crypto(settings.resolved_secret_key()),
            limits=RateLimits(settings),
        )

    def now(self) -> datetime:
        return self.clock()

    async def close(self) -> None:
        await self.db.dispose()
        await self.limits.close()
