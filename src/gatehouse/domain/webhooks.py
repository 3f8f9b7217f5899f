"""Webhook endpoint and delivery vocabulary (docs/reference/webhooks.md §2)."""

from __future__ import annotations

from enum import StrEnum


class EndpointStatus(StrEnum):
    """An endpoint's `status`."""

    ENABLED = "enabled"
    DISABLED = "disabled"


class DisabledReason(StrEnum):
    """An endpoint's `disabledReason` while it is disabled (null while enabled)."""

    RECEIVER_GONE = "receiver_gone"  # the receiver answered 410
    CONSECUTIVE_FAILURES = "consecutive_failures"
    FAILING_24H = "failing_24h"
    MANUAL = "manual"


class DeliveryStatus(StrEnum):
    """A delivery's `status`."""

    PENDING = "pending"
    SUCCEEDED = "succeeded"
    DEAD = "dead"
    CANCELLED = "cancelled"


DELIVERY_STATUSES: tuple[str, ...] = tuple(DeliveryStatus)
