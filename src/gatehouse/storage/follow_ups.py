"""Work a write transaction owes before it commits.

A feature that changes something a higher feature derives a stored value from cannot call
that feature (features import one way round, docs/architecture.md). It marks the key on its
session instead (`FollowUp.mark`), and the higher feature's handler, registered when its
package loads (`FollowUp.handle`), runs inside the same transaction just before the commit
(`Database.write`). So a stored value never lags the change it depends on: the risk level
the staff queue filters on is recomputed in the transaction that changed one of its inputs
(docs/screening.md, "Risk").

A mark with no handler registered is a wiring error and fails the write (it would otherwise
leave the stored value stale without a trace).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from sqlalchemy.ext.asyncio import AsyncSession

Handler = Callable[[AsyncSession, list[str]], Awaitable[None]]
_KEY = "gatehouse_follow_ups"
# A handler may mark again (its own writes); more rounds than this is a loop.
MAX_ROUNDS = 5


class FollowUp:
    """One kind of follow-up, keyed by a string (an application id, say)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._handler: Handler | None = None

    def handle(self, handler: Handler) -> None:
        """Register the function that settles this follow-up's marked keys."""
        self._handler = handler

    def mark(self, session: AsyncSession, keys: str | Iterable[str | None] | None) -> None:
        """Ask for the handler to run on these keys before `session` commits."""
        wanted = {keys} if isinstance(keys, str) else {k for k in keys or () if k}
        if not wanted:
            return
        pending: dict[FollowUp, set[str]] = session.info.setdefault(_KEY, {})
        pending.setdefault(self, set()).update(wanted)

    async def run(self, session: AsyncSession, keys: set[str]) -> None:
        if self._handler is None:
            raise RuntimeError(f"no handler registered for the follow-up {self.name!r}")
        await self._handler(session, sorted(keys))


# An application's facts changed (answers, documents, a linked verification, hits): what
# is derived from them and stored (its risk level) is computed again.
APPLICATION_FACTS = FollowUp("application facts")


async def settle(session: AsyncSession) -> None:
    """Run the follow-ups marked on `session` (called before a write commits)."""
    for _ in range(MAX_ROUNDS):
        pending: dict[FollowUp, set[str]] | None = session.info.pop(_KEY, None)
        if not pending:
            return
        for follow_up, keys in pending.items():
            await follow_up.run(session, keys)
    raise RuntimeError("follow-ups kept marking each other")
