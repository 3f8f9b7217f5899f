"""The documented example receiver (docs/verification-receiver.md; docs/reference/verification.md
§5.3),
exercised over real HTTP on a loopback port."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.live import serve_in_thread
from tests.verification.conftest import PASSPHRASE, LiveReceiver, eventually
from tests.verification.example_receiver import (
    CallbackReceiver,
    CustomerBook,
    StatusUpdate,
    parse_update,
    passphrase_matches,
)


def payload(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": 1,
        "uuid": "3f1c2d4e-0000-4000-8000-000000000001",
        "email": "a@example.com",
        "phone": "+971500000001",
        "newStatus": 6,
        "updatedAt": "2026-11-22T10:00:00.000Z",
        "event": "customer_status_changed",
        "expiryWarningFor": [],
        "passphrase": PASSPHRASE,
    }
    body.update(overrides)
    return body


def update(**overrides: Any) -> StatusUpdate:
    parsed = parse_update(payload(**overrides))
    assert parsed is not None
    return parsed


def test_passphrase_comparison() -> None:
    assert passphrase_matches(PASSPHRASE, PASSPHRASE)
    assert not passphrase_matches(PASSPHRASE + "x", PASSPHRASE)
    assert not passphrase_matches("", PASSPHRASE)
    assert not passphrase_matches(None, PASSPHRASE)
    assert not passphrase_matches(123456, "123456")
    # During a rotation both the old and the new passphrase are accepted.
    assert passphrase_matches("old-phrase", ["new-phrase", "old-phrase"])
    assert not passphrase_matches("other-phrase", ["new-phrase", "old-phrase"])


def test_the_comparison_is_constant_time() -> None:
    import inspect

    from tests.verification import example_receiver

    source = inspect.getsource(example_receiver.passphrase_matches)
    assert "hmac.compare_digest" in source
    assert "==" not in source


async def test_unknown_and_reserved_codes_are_held_for_review() -> None:
    book = CustomerBook()
    for odd in (1, 3, 4, 8, 42, "6", None):
        assert await book.apply(update(newStatus=odd)) == "review"
    assert await book.apply(update(event="customer_deleted")) == "review"
    assert book.status == {}
    assert len(book.for_review) == 8


async def test_known_codes_act_and_stale_or_repeated_updates_do_not() -> None:
    book = CustomerBook()
    assert await book.apply(update(newStatus=9)) == "wait"
    assert await book.apply(update(newStatus=6, updatedAt="2026-11-22T10:00:01.000Z")) == "accept"
    assert await book.apply(update(newStatus=6, updatedAt="2026-11-22T10:00:01.000Z")) == "repeat"
    # A retried older callback arriving late must not undo the newer status.
    assert await book.apply(update(newStatus=9)) == "stale"
    assert await book.apply(update(newStatus=2, updatedAt="2026-11-23T00:00:00.000Z")) == "reverify"
    assert await book.apply(update(newStatus=7, updatedAt="2026-11-24T00:00:00.000Z")) == "reject"
    assert book.status == {"3f1c2d4e-0000-4000-8000-000000000001": 7}
    warn = update(event="expiry_warning", expiryWarningFor=["passport"])
    assert await book.apply(warn) == "remind"
    assert book.reminders == [("3f1c2d4e-0000-4000-8000-000000000001", ("passport",))]


async def test_over_http_mismatch_is_401_and_nothing_is_processed(receiver: LiveReceiver) -> None:
    async with httpx.AsyncClient() as http:
        wrong = await http.post(receiver.url, json=payload(passphrase="guess-guess"))
        missing = await http.post(
            receiver.url, json={k: v for k, v in payload().items() if k != "passphrase"}
        )
        garbage = await http.post(receiver.url, content=b"{nope")
        incomplete = await http.post(receiver.url, json={"passphrase": PASSPHRASE})
        get = await http.get(receiver.url)
    assert wrong.status_code == 401
    assert missing.status_code == 401
    assert garbage.status_code == 400
    assert incomplete.status_code == 400
    assert get.status_code == 405
    assert receiver.app.refused == 2
    assert receiver.book.applied == []
    assert receiver.book.for_review == []


@pytest.fixture
def slow_receiver() -> Iterator[tuple[str, list[StatusUpdate], threading.Event]]:
    """A receiver whose processing takes long: it must still answer at once."""
    processed: list[StatusUpdate] = []
    release = threading.Event()

    async def slow_handler(item: StatusUpdate) -> None:
        while not release.is_set():
            await asyncio.sleep(0.01)
        processed.append(item)

    app = CallbackReceiver(PASSPHRASE, slow_handler)
    with serve_in_thread(lambda: app) as base:  # type: ignore[arg-type,return-value]
        yield base + "/cb", processed, release
    release.set()


async def test_answers_2xx_fast_and_processes_in_the_background(
    slow_receiver: tuple[str, list[StatusUpdate], threading.Event],
) -> None:
    url, processed, release = slow_receiver
    async with httpx.AsyncClient() as http:
        started = time.monotonic()
        response = await http.post(url, json=payload())
        elapsed = time.monotonic() - started
    assert response.status_code == 202
    assert elapsed < 1.0
    assert processed == []  # answered before the work was done
    release.set()
    await eventually(lambda: processed)
    assert processed[0].new_status == 6
