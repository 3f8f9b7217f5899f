"""When a call may be repeated (docs/reference/tenant-api.md §5.15, §4.4;
docs/reference/tenant-api.md §4.6).

The decision is a pure function of what the call is, what went wrong and
how many attempts were made, so the sync and async clients share it.

- 429 and 409 `aborted` mean nothing ran: every call waits (Retry-After
  when given, else exponential backoff with jitter) and repeats.
- A connection that never opened means nothing was sent: every call repeats.
- A 5xx, or a timeout or broken connection after the request went out, is
  ambiguous: the write may have happened. Reads, member add, lock and unlock
  repeat. Other writes repeat only with the Idempotency-Key generated once
  for the call (the server replays the first outcome). Without a key a
  provisioning call reconciles with the matching read first. Login sessions
  and secret rotation are never repeated blindly: AmbiguousResult.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass

__all__ = ["Backoff", "Decision", "Safety", "decide"]


class Safety(enum.Enum):
    """How safe a call is to repeat after an ambiguous failure."""

    READ = "read"
    # Repeating returns the resulting state: member add, lock, unlock (§4.15 rule 3).
    REPEATABLE = "repeatable"
    # Safe to repeat only with the same Idempotency-Key; otherwise reconcile first.
    KEYED = "keyed"
    # Each success makes a new credential: login sessions, secret rotation (§4.15 rule 2).
    NEVER = "never"


class Action(enum.Enum):
    RETRY = "retry"
    RAISE = "raise"
    AMBIGUOUS = "ambiguous"
    RECONCILE = "reconcile"


@dataclass(frozen=True)
class Decision:
    action: Action
    delay: float = 0.0


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with jitter: attempt n waits uniform in [d/2, d],
    d = min(base * 2**n, cap). A Retry-After above `max_retry_after` is not
    waited for: the error is raised so the caller can schedule the work."""

    base: float = 0.5
    cap: float = 30.0
    max_retry_after: float = 60.0

    def delay(self, retry_number: int, rng: random.Random | None = None) -> float:
        nominal = min(self.base * (2**retry_number), self.cap)
        return (rng or random).uniform(nominal / 2, nominal)


def decide(
    *,
    safety: Safety,
    has_key: bool,
    can_reconcile: bool,
    retries_done: int,
    max_retries: int,
    backoff: Backoff,
    status: int | None = None,
    code: str | None = None,
    retry_after: float | None = None,
    sent: bool = True,
    rng: random.Random | None = None,
) -> Decision:
    """What to do after a failed attempt.

    `status` is the HTTP status of the error answer, None for a transport
    failure; `sent` is False when the connection never opened.
    """
    exhausted = retries_done >= max_retries
    if status == 429 or (status == 409 and code == "aborted"):
        if exhausted:
            return Decision(Action.RAISE)
        if retry_after is not None:
            if retry_after > backoff.max_retry_after:
                return Decision(Action.RAISE)
            return Decision(Action.RETRY, retry_after)
        return Decision(Action.RETRY, backoff.delay(retries_done, rng))
    if status is not None and status < 500:
        return Decision(Action.RAISE)
    if status is None and not sent:
        if exhausted:
            return Decision(Action.RAISE)
        return Decision(Action.RETRY, backoff.delay(retries_done, rng))
    # 5xx, or a transport failure after the request went out: ambiguous.
    if safety is Safety.READ:
        if exhausted:
            return Decision(Action.RAISE)
        return Decision(Action.RETRY, backoff.delay(retries_done, rng))
    if safety is Safety.NEVER:
        return Decision(Action.AMBIGUOUS)
    if safety is Safety.REPEATABLE or has_key:
        if exhausted:
            return Decision(Action.AMBIGUOUS)
        return Decision(Action.RETRY, backoff.delay(retries_done, rng))
    if can_reconcile and not exhausted:
        return Decision(Action.RECONCILE, backoff.delay(retries_done, rng))
    return Decision(Action.AMBIGUOUS)
