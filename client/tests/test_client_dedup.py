"""Durable deduplication and the accept-once-then-2xx receiver (docs/reference/webhooks.md §7.1
rule 6, §6.4).
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gatehouse_client import (
    DedupStore,
    Event,
    SqliteDedupStore,
    WebhookReceiver,
    signature_header,
)

SECRET = "whsec_" + "c" * 40


def delivery(event_id: str = "evt_1", tenant: str = "ten_1") -> tuple[bytes, dict[str, str]]:
    body = json.dumps(
        {
            "id": event_id,
            "type": "application.submitted",
            "apiVersion": "v1",
            "occurredAt": "2026-11-22T10:00:00.000Z",
            "tenantId": tenant,
            "idempotencyKey": event_id,
            "data": {"clientId": "app_1", "status": "pending", "sequence": 1},
        }
    ).encode()
    ts = int(time.time())
    return body, {
        "Gatehouse-Event-Id": event_id,
        "Gatehouse-Event-Type": "application.submitted",
        "Gatehouse-Timestamp": str(ts),
        "Gatehouse-Attempt": "1",
        "Gatehouse-Signature": signature_header([SECRET], ts, body),
    }


def test_accept_is_true_once_then_false(tmp_path: Path) -> None:
    with SqliteDedupStore(tmp_path / "events.db") as store:
        assert isinstance(store, DedupStore)
        assert store.accept("evt_1", b"{}") is True
        assert store.accept("evt_1", b"{}") is False
        assert store.accept("evt_2") is True
        assert store.seen("evt_1")
        assert not store.seen("evt_3")


def test_accepted_events_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    store = SqliteDedupStore(path)
    assert store.accept("evt_1", b"payload")
    store.close()
    reopened = SqliteDedupStore(path)
    assert reopened.accept("evt_1") is False
    assert [(p.event_id, p.payload) for p in reopened.pending()] == [("evt_1", b"payload")]
    reopened.mark_processed("evt_1")
    assert reopened.pending() == []
    assert reopened.accept("evt_1") is False
    reopened.close()


def test_scopes_deduplicate_independently(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    with SqliteDedupStore(path, scope="crm") as crm, SqliteDedupStore(path, scope="ops") as ops:
        assert crm.accept("evt_1")
        assert ops.accept("evt_1")
        assert not crm.accept("evt_1")
        assert not ops.accept("evt_1")


def test_concurrent_accepts_of_one_event_succeed_exactly_once(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    stores = [SqliteDedupStore(path) for _ in range(4)]  # four "processes"
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(lambda i: stores[i % 4].accept("evt_same"), range(40)))
        assert results.count(True) == 1
    finally:
        for store in stores:
            store.close()


def test_receiver_answers_200_then_200_duplicate_without_repeat_work(tmp_path: Path) -> None:
    handled: list[str] = []
    with SqliteDedupStore(tmp_path / "events.db") as store:
        receiver = WebhookReceiver(
            [SECRET],
            store,
            expected_tenants={"ten_1"},
            on_accept=lambda e, _b: handled.append(e.id),
        )
        body, headers = delivery()
        first = receiver.receive(body, headers)
        again = receiver.receive(body, headers)
        assert (first.status_code, first.duplicate) == (200, False)
        assert (again.status_code, again.duplicate) == (200, True)
        assert isinstance(first.event, Event)
        assert first.event.id == "evt_1"
        assert handled == ["evt_1"]
        assert [p.payload for p in store.pending()] == [body]


def test_receiver_rejects_bad_deliveries_with_401_and_stores_nothing(tmp_path: Path) -> None:
    with SqliteDedupStore(tmp_path / "events.db") as store:
        receiver = WebhookReceiver([SECRET], store, expected_tenants={"ten_1"})
        body, headers = delivery()
        headers["Gatehouse-Signature"] = "v1=" + "0" * 64
        receipt = receiver.receive(body, headers)
        assert (receipt.status_code, receipt.error) == (401, "signature_mismatch")
        foreign_body, foreign_headers = delivery("evt_2", tenant="ten_other")
        assert receiver.receive(foreign_body, foreign_headers).error == "unexpected_tenant"
        assert store.pending() == []


class BrokenStore:
    def accept(self, event_id: str, payload: bytes | None = None) -> bool:
        raise OSError("disk full")


def test_receiver_answers_500_when_the_event_cannot_be_stored() -> None:
    receiver = WebhookReceiver([SECRET], BrokenStore())
    body, headers = delivery()
    receipt = receiver.receive(body, headers)
    assert (receipt.status_code, receipt.error) == (500, "store_failed")


def test_a_failing_hook_does_not_turn_a_stored_event_into_a_failure(tmp_path: Path) -> None:
    def hook(_event: Event, _body: bytes) -> None:
        raise RuntimeError("queue down")

    with SqliteDedupStore(tmp_path / "events.db") as store:
        receiver = WebhookReceiver([SECRET], store, on_accept=hook)
        body, headers = delivery()
        assert receiver.receive(body, headers).status_code == 200
        assert [p.event_id for p in store.pending()] == ["evt_1"]
