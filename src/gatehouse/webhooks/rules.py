"""Pure webhook rules: catalogue, filters, signing, retry schedule (spec 2; CONTRACT §2).

No HTTP and no SQL here: the routes, the outbox fan-out and the worker call
these functions, and they are unit-tested on their own.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime

# CONTRACT §2.2: every event type the service emits.
EVENT_TYPES: tuple[str, ...] = (
    "application.submitted",
    "application.status.changed",
    "application.decision.proposed",
    "application.decision.approved",
    "application.decision.proposal_rejected",
    "application.decision.rejected",
    "application.decision.hold",
    "application.info_request.raised",
    "application.info_request.responded",
    "application.info_request.closed",
    "webhook.test",
)
# CONTRACT §2.2: the only wildcards, each allowed only as the sole entry.
WILDCARDS: dict[str, str] = {
    "*": "",
    "application.*": "application.",
    "application.decision.*": "application.decision.",
    "application.info_request.*": "application.info_request.",
}
TEST_EVENT_TYPE = "webhook.test"

# Spec 2 §6.3: nominal delay before attempt n+1, in seconds; then 6 h.
NOMINAL_DELAYS: tuple[int, ...] = (30, 60, 120, 240, 480, 960, 1920, 3840, 7680, 15360)
LATE_DELAY = 6 * 3600
DELIVERY_BOUND = timedelta(hours=24)
CONSECUTIVE_DEAD_LIMIT = 20  # spec 2 §8
FAILING_WINDOW = timedelta(hours=24)  # spec 2 §3, CONTRACT §6
PREVIOUS_SECRET_LIFETIME = timedelta(hours=24)  # spec 2 §4.3, CONTRACT §2.1
RETRY_AFTER_STATUSES = frozenset({429, 503})
SECRET_PREFIX = "whsec_"
USER_AGENT = "Gatehouse-Webhooks/1"

# Endpoint `disabledReason` values (CONTRACT §2.1).
REASON_GONE = "receiver_gone"
REASON_CONSECUTIVE = "consecutive_failures"
REASON_FAILING_24H = "failing_24h"
REASON_MANUAL = "manual"


class InvalidFilter(ValueError):
    """An `events` subscription the contract does not allow; the message says why."""


def normalize_filter(events: object) -> list[str]:
    """Validate an `events` list (CONTRACT §2.2) and drop duplicates, keeping order."""
    if not isinstance(events, list) or not events:
        raise InvalidFilter("events must be a nonempty list of event types")
    if not all(isinstance(entry, str) for entry in events):
        raise InvalidFilter("events must hold strings")
    unique = list(dict.fromkeys(events))
    wildcards = [entry for entry in unique if entry in WILDCARDS]
    if wildcards:
        if len(unique) != 1:
            raise InvalidFilter("a wildcard must be the only entry of events")
        return unique
    unknown = [entry for entry in unique if entry not in EVENT_TYPES]
    if unknown:
        raise InvalidFilter(f"unknown event type: {unknown[0][:100]}")
    return unique


def filter_matches(events: Sequence[str], event_type: str) -> bool:
    """Whether an endpoint subscribed to `events` receives `event_type`."""
    for entry in events:
        prefix = WILDCARDS.get(entry)
        if prefix is not None:
            if event_type.startswith(prefix):
                return True
        elif entry == event_type:
            return True
    return False


def new_secret() -> str:
    """`whsec_` and 43 URL-safe characters (CONTRACT §2.3: 32 to 64)."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def signature_header(timestamp: int, body: bytes, active_secrets: Iterable[str]) -> str:
    """`v1=<hex>` per secret (newest first), single spaces (spec 2 §5, CONTRACT §2.3)."""
    signed = str(timestamp).encode() + b"." + body
    return " ".join(
        "v1=" + hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
        for secret in active_secrets
    )


def delivery_headers(
    *,
    event_id: str,
    event_type: str,
    timestamp: int,
    attempt: int,
    body: bytes,
    active_secrets: Sequence[str],
) -> dict[str, str]:
    """The headers of CONTRACT §2.3, exactly."""
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Gatehouse-Event-Id": event_id,
        "Gatehouse-Event-Type": event_type,
        "Gatehouse-Timestamp": str(timestamp),
        "Gatehouse-Attempt": str(attempt),
        "Gatehouse-Signature": signature_header(timestamp, body, active_secrets),
    }


def nominal_delay(attempts_made: int) -> float:
    """Nominal seconds before the next attempt after `attempts_made` attempts (spec 2 §6.3)."""
    index = attempts_made - 1
    return float(NOMINAL_DELAYS[index] if 0 <= index < len(NOMINAL_DELAYS) else LATE_DELAY)


def jittered_delay(attempts_made: int, scale: float, rng: random.Random | None = None) -> float:
    """Uniform in [d/2, d] of the nominal delay d, times WEBHOOK_BACKOFF_SCALE."""
    nominal = nominal_delay(attempts_made)
    pick = (rng or random).uniform(nominal / 2, nominal)
    return pick * scale


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds to wait from a `Retry-After` value (delta-seconds or HTTP date), else None.

    Never scaled (CONTRACT §6). Invalid or negative values give None.
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if text.isdigit():
        return float(int(text))
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, (when - now).total_seconds())


@dataclass(frozen=True)
class Attempted:
    """What the receiver did with one attempt."""

    status: int | None
    error: str | None
    retry_after: str | None = None

    @property
    def success(self) -> bool:
        return self.status is not None and 200 <= self.status <= 299

    @property
    def receiver_gone(self) -> bool:
        return self.status == 410


@dataclass(frozen=True)
class NextStep:
    """The delivery's fate after an attempt: succeeded, retry at `retry_at`, or dead."""

    status: str  # succeeded | pending | dead
    retry_at: datetime | None = None


def next_step(
    outcome: Attempted,
    *,
    attempts_made: int,
    first_attempt_at: datetime,
    now: datetime,
    max_attempts: int,
    scale: float,
    rng: random.Random | None = None,
) -> NextStep:
    """Spec 2 §6.3 with CONTRACT §2.3/§6: attempt cap, 24 h bound, jitter, Retry-After."""
    if outcome.success:
        return NextStep("succeeded")
    if outcome.receiver_gone or attempts_made >= max_attempts:
        return NextStep("dead")
    bound = first_attempt_at + DELIVERY_BOUND * scale
    if outcome.status in RETRY_AFTER_STATUSES:
        wait = parse_retry_after(outcome.retry_after, now)
        if wait is not None:
            honoured = now + timedelta(seconds=wait)
            if honoured <= bound:
                return NextStep("pending", honoured)
    retry_at = now + timedelta(seconds=jittered_delay(attempts_made, scale, rng))
    if retry_at > bound:
        return NextStep("dead")
    return NextStep("pending", retry_at)


def failing_too_long(failing_since: datetime | None, now: datetime, scale: float) -> bool:
    """`failing_24h`: dead deliveries and no success for 24 h (scaled; CONTRACT §2.3, §6)."""
    return failing_since is not None and now - failing_since >= FAILING_WINDOW * scale
