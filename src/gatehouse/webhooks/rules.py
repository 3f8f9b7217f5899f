"""Pure webhook rules: catalogue, filters, signing, retry schedule, endpoint health
(docs/reference/webhooks.md).

No HTTP and no SQL here: the routes, the outbox fan-out and the worker call
these functions, and they are unit-tested on their own.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import random
import re
import secrets
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime

from gatehouse.domain.event_types import WILDCARD_PREFIXES, EventType
from gatehouse.domain.webhooks import DeliveryStatus, DisabledReason

# docs/reference/webhooks.md §5.2: every event type the service emits.
EVENT_TYPES: tuple[str, ...] = tuple(EventType)
# docs/reference/webhooks.md §5.1: the only wildcards, each allowed only as the sole entry.
WILDCARDS: dict[str, str] = WILDCARD_PREFIXES
TEST_EVENT_TYPE = EventType.WEBHOOK_TEST

# docs/reference/webhooks.md §6.4: nominal delay before attempt n+1, in seconds; then 6 h.
NOMINAL_DELAYS: tuple[int, ...] = (30, 60, 120, 240, 480, 960, 1920, 3840, 7680, 15360)
LATE_DELAY = 6 * 3600
DELIVERY_BOUND = timedelta(hours=24)
CONSECUTIVE_DEAD_LIMIT = 20  # docs/reference/webhooks.md §6.6
FAILING_WINDOW = timedelta(hours=24)  # docs/reference/webhooks.md §6.6
PREVIOUS_SECRET_LIFETIME = timedelta(hours=24)  # docs/reference/webhooks.md §4.9
RETRY_AFTER_STATUSES = frozenset({429, 503})
# An HTTP date is 29 characters; delta-seconds of 12 digits already pass any bound.
RETRY_AFTER_MAX_CHARS = 64
RETRY_AFTER_MAX_DIGITS = 12
_DELTA_SECONDS = re.compile(rf"[0-9]{{1,{RETRY_AFTER_MAX_DIGITS}}}")
SECRET_PREFIX = "whsec_"  # noqa: S105 - the format's prefix, not a secret
USER_AGENT = "Gatehouse-Webhooks/1"

# Endpoint `disabledReason` values (docs/reference/webhooks.md §2.1).
REASON_GONE = DisabledReason.RECEIVER_GONE
REASON_CONSECUTIVE = DisabledReason.CONSECUTIVE_FAILURES
REASON_FAILING_24H = DisabledReason.FAILING_24H
REASON_MANUAL = DisabledReason.MANUAL


class InvalidFilter(ValueError):
    """An `events` subscription the contract does not allow; the message says why."""


def normalize_filter(events: object) -> list[str]:
    """Validate an `events` list (docs/reference/webhooks.md §5.1); drop duplicates, keep order."""
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


SECRET_ALPHABET = string.ascii_letters + string.digits
SECRET_LENGTH = 48
_STANDARD_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def new_secret() -> str:
    """`whsec_` and 48 characters of [A-Za-z0-9] (docs/reference/webhooks.md §6.2, §10):
    used as-is for `Gatehouse-Signature`, and base64 that decodes to 36 bytes, the key of
    `webhook-signature`."""
    return SECRET_PREFIX + "".join(secrets.choice(SECRET_ALPHABET) for _ in range(SECRET_LENGTH))


def standard_key(secret: str) -> bytes | None:
    """The Standard Webhooks HMAC key of a secret: the base64 decoding (standard alphabet,
    padding optional) of the text after `whsec_`; None when it is not base64.

    Every secret issued since Standard Webhooks was adopted has one. An older secret (URL-safe
    text) may hold `-` or `_`, or have a length base64 cannot have: it signs only
    `Gatehouse-Signature`, and `webhook-signature` carries no value for it
    (docs/reference/webhooks.md §10). The rule is the client SDK's, so both agree.
    """
    text = secret.removeprefix(SECRET_PREFIX)
    if not text or not _STANDARD_BASE64.fullmatch(text):
        return None
    text = text.rstrip("=")
    if len(text) % 4 == 1:
        return None
    try:
        key = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return key or None


def standard_signature_header(
    event_id: str, timestamp: int, body: bytes, active_secrets: Iterable[str]
) -> str:
    """`webhook-signature`: `v1,<base64 HMAC-SHA256 of "<id>.<ts>.<body>">` per secret that
    has a Standard Webhooks key (newest first), single spaces; empty when none has one."""
    signed = event_id.encode("utf-8") + b"." + str(timestamp).encode() + b"." + body
    values = []
    for secret in active_secrets:
        key = standard_key(secret)
        if key is not None:
            digest = hmac.new(key, signed, hashlib.sha256).digest()
            values.append("v1," + base64.b64encode(digest).decode("ascii"))
    return " ".join(values)


def signature_header(timestamp: int, body: bytes, active_secrets: Iterable[str]) -> str:
    """`v1=<hex>` per secret (newest first), single spaces (docs/reference/webhooks.md §6.2)."""
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
    """The headers of docs/reference/webhooks.md §6.1, then the Standard Webhooks set of §10:
    `webhook-id` (the event id), `webhook-timestamp` (the same seconds) and
    `webhook-signature` (left out when no active secret has a Standard Webhooks key)."""
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Gatehouse-Event-Id": event_id,
        "Gatehouse-Event-Type": event_type,
        "Gatehouse-Timestamp": str(timestamp),
        "Gatehouse-Attempt": str(attempt),
        "Gatehouse-Signature": signature_header(timestamp, body, active_secrets),
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
    }
    standard = standard_signature_header(event_id, timestamp, body, active_secrets)
    if standard:
        headers["webhook-signature"] = standard
    return headers


def nominal_delay(attempts_made: int) -> float:
    """Nominal seconds before the next attempt after `attempts_made` attempts (§6.4)."""
    index = attempts_made - 1
    return float(NOMINAL_DELAYS[index] if 0 <= index < len(NOMINAL_DELAYS) else LATE_DELAY)


def jittered_delay(attempts_made: int, scale: float, rng: random.Random | None = None) -> float:
    """Uniform in [d/2, d] of the nominal delay d, times WEBHOOK_BACKOFF_SCALE."""
    nominal = nominal_delay(attempts_made)
    pick = (rng or random).uniform(nominal / 2, nominal)
    return pick * scale


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds to wait from a receiver's `Retry-After`, or None when it is not valid.

    Valid: delta-seconds (ASCII digits only, at most RETRY_AFTER_MAX_DIGITS of them) or an
    HTTP date, at most RETRY_AFTER_MAX_CHARS long. A date in the past means no wait. Never
    scaled (docs/reference/webhooks.md §6.5). Whatever a receiver sends, this returns and
    never raises: anything else (other digits such as `²` or `٣`, signs, fractions, garbage,
    dates no calendar holds) is ignored.
    """
    if value is None or len(value) > RETRY_AFTER_MAX_CHARS:
        return None
    text = value.strip(" \t")
    if _DELTA_SECONDS.fullmatch(text):
        return float(int(text))
    if not text or not text.isascii():
        return None
    try:
        when = parsedate_to_datetime(text)
        if when.tzinfo is None:
            return None
        return max(0.0, (when - now).total_seconds())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


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

    status: DeliveryStatus  # succeeded | pending | dead
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
    """docs/reference/webhooks.md §6.3-§6.5: attempt cap, 24 h bound, jitter, Retry-After."""
    if outcome.success:
        return NextStep(DeliveryStatus.SUCCEEDED)
    if outcome.receiver_gone or attempts_made >= max_attempts:
        return NextStep(DeliveryStatus.DEAD)
    bound = first_attempt_at + DELIVERY_BOUND * scale
    if outcome.status in RETRY_AFTER_STATUSES:
        wait = parse_retry_after(outcome.retry_after, now)
        # Compared in seconds first: a wait past the bound is never turned into a date.
        if wait is not None and wait <= (bound - now).total_seconds():
            return NextStep(DeliveryStatus.PENDING, now + timedelta(seconds=wait))
    retry_at = now + timedelta(seconds=jittered_delay(attempts_made, scale, rng))
    if retry_at > bound:
        return NextStep(DeliveryStatus.DEAD)
    return NextStep(DeliveryStatus.PENDING, retry_at)


def failing_too_long(failing_since: datetime | None, now: datetime, scale: float) -> bool:
    """`failing_24h`: dead deliveries and no success for 24 h (scaled; docs/reference/webhooks.md
    §6.6)."""
    return failing_since is not None and now - failing_since >= FAILING_WINDOW * scale


@dataclass(frozen=True)
class HealthVerdict:
    """An endpoint after one failed attempt of a real event: its failure record, and the
    `disabledReason` it must be disabled for now (None: it stays enabled)."""

    consecutive_failures: int
    failing_since: datetime | None
    disable: str | None = None


def endpoint_health(
    *,
    http_status: int | None,
    dead: bool,
    consecutive_failures: int,
    failing_since: datetime | None,
    now: datetime,
    scale: float,
) -> HealthVerdict:
    """What one failed attempt does to an enabled endpoint (docs/reference/webhooks.md §6.6).

    Only an attempt that made its delivery dead counts: `consecutive_failures`
    grows by one and `failing_since` starts if unset. Then, first match wins:
    a 410 answer disables at once (`receiver_gone`); the CONSECUTIVE_DEAD_LIMIT-th
    dead delivery in a row (`consecutive_failures`); a first dead delivery since
    the last success 24 h old, scaled (`failing_24h`); else None.
    """
    if dead:
        consecutive_failures += 1
        failing_since = failing_since or now
    if http_status == 410:
        reason: str | None = REASON_GONE
    elif not dead:
        reason = None
    elif consecutive_failures >= CONSECUTIVE_DEAD_LIMIT:
        reason = REASON_CONSECUTIVE
    elif failing_too_long(failing_since, now, scale):
        reason = REASON_FAILING_24H
    else:
        reason = None
    return HealthVerdict(
        consecutive_failures=consecutive_failures, failing_since=failing_since, disable=reason
    )
