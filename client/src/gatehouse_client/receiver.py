"""A framework-neutral webhook receiver: verify, deduplicate, answer (docs/reference/webhooks.md
§7.1).

`WebhookReceiver.receive(raw_body, headers)` returns a `Receipt` holding the
HTTP status to answer with: 401 for anything that fails verification, 500
when the event could not be stored (so it is delivered again), 200 for a
new event and for a repeat. Business processing happens later, from the
store's inbox (`SqliteDedupStore.pending`) or after an `on_accept` hook that
only wakes a worker: the event is already stored when the hook runs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from gatehouse_client.dedup import DedupStore
from gatehouse_client.events import Event
from gatehouse_client.signing import DEFAULT_TOLERANCE, SignatureError, verify

__all__ = ["Receipt", "WebhookReceiver"]

log = logging.getLogger("gatehouse_client.receiver")


@dataclass(frozen=True)
class Receipt:
    status_code: int
    event: Event | None = None
    duplicate: bool = False
    error: str | None = None

    @property
    def body(self) -> bytes:
        if self.error is not None:
            return b'{"received": false}'
        return b'{"received": true}'


class WebhookReceiver:
    def __init__(
        self,
        secrets: str | Iterable[str],
        store: DedupStore,
        *,
        expected_tenants: Collection[str] | None = None,
        tolerance: int = DEFAULT_TOLERANCE,
        on_accept: Callable[[Event, bytes], None] | None = None,
    ) -> None:
        self.secrets = [secrets] if isinstance(secrets, str) else list(secrets)
        self.store = store
        self.expected_tenants = expected_tenants
        self.tolerance = tolerance
        self.on_accept = on_accept

    def receive(
        self, raw_body: bytes, headers: Mapping[str, str] | Iterable[tuple[str, str]]
    ) -> Receipt:
        try:
            event = verify(
                raw_body,
                headers,
                self.secrets,
                tolerance=self.tolerance,
                expected_tenants=self.expected_tenants,
            )
        except SignatureError as exc:
            log.warning("webhook delivery rejected: %s", exc.reason)
            return Receipt(401, error=exc.reason)
        try:
            first = self.store.accept(event.id, bytes(raw_body))
        except Exception:
            log.exception("webhook event %s could not be stored", event.id)
            return Receipt(500, event=event, error="store_failed")
        if first and self.on_accept is not None:
            # The event is stored durably already; the hook only wakes a worker,
            # so its failure must not make the sender deliver again.
            try:
                self.on_accept(event, bytes(raw_body))
            except Exception:
                log.exception("on_accept hook failed for webhook event %s", event.id)
        return Receipt(200, event=event, duplicate=not first)
