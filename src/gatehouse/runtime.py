"""What every request and worker shares: settings, database, crypto, limits, clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from gatehouse import tracing
from gatehouse.crypto import Crypto
from gatehouse.keyed_lock import KeyedLock
from gatehouse.limits.credentials import CredentialCache
from gatehouse.limits.ratelimit import RateLimits
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
    # Verified API keys of this process (limits/credentials.py; bench/RESULTS.md).
    credentials: CredentialCache | None = None
    # Provisioning calls for one identity queue here, in arrival order (keyed_lock.py).
    identity_queue: KeyedLock = field(default_factory=KeyedLock)

    @classmethod
    def build(cls, settings: Settings) -> Runtime:
        tracing.configure()  # OTEL_* variables: traces on or off for this process
        db = Database(
            settings.database_url,
            pool_size=settings.db_pool_size,
            transaction_pooler=settings.transaction_pooler,
        )
        return cls(
            settings=settings,
            db=db,
            crypto=Crypto(settings.resolved_secret_key(), settings.previous_key_list),
            limits=RateLimits(settings),
            credentials=CredentialCache(settings, (db.write_engine, db.read_engine)),
        )

    def now(self) -> datetime:
        return self.clock()

    async def close(self) -> None:
        await self.db.dispose()
        await self.limits.close()
        if self.credentials is not None:
            await self.credentials.close()
