"""What a receiver can and cannot do to the worker (docs/webhooks.md): absurd answers are
read within bounds and never raise, and one outcome that cannot be recorded never undoes
other tenants' work. Real loopback receivers, a real worker, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from datetime import datetime, timedelta

import httpx
import pytest

from gatehouse.outbound.transport import PostResult
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.webhooks import Delivery
from gatehouse.webhooks.delivery import DeliveryWorker
from gatehouse.webhooks.delivery.claims import Claims
from gatehouse.webhooks.delivery.loop import attempt
from gatehouse.webhooks.delivery.recorder import Outcome, Recorder
from tests.support.factories import TenantFixture, make_tenant
from tests.webhooks.conftest import create_endpoint, deliveries_of, emit, wait_until
from tests.webhooks.hostile import Answer, Hostile, running_hostile, status
from tests.webhooks.receiver import Receiver, running_receiver


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    with running_hostile(Hostile()) as h:
        yield h


class FrozenClock:
    """The runtime's clock, stopped: nothing scheduled falls due until the test moves it."""

    def __init__(self, runtime: Runtime) -> None:
        self.now = runtime.now()
        runtime.clock = lambda: self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


async def recorded(runtime: Runtime, endpoint_id: str) -> Delivery | None:
    """The endpoint's one delivery once an outcome of it is recorded (no lease held)."""
    [delivery] = await deliveries_of(runtime, endpoint_id)
    if delivery.claim_token is None and delivery.attempts >= 1:
        return delivery
    return None


def schedule_window(runtime: Runtime, attempts_made: int) -> tuple[timedelta, timedelta]:
    """The jittered delay before the next attempt: [d/2, d] x WEBHOOK_BACKOFF_SCALE."""
    nominal = (30, 60)[attempts_made - 1] * runtime.settings.webhook_backoff_scale
    return timedelta(seconds=nominal / 2), timedelta(seconds=nominal)


ABSURD_RETRY_AFTER = [
    pytest.param(503, "²".encode(), id="superscript-two"),
    pytest.param(429, "٣".encode(), id="arabic-indic-three"),
    pytest.param(503, b"9" * 5000, id="5000-digits"),
    pytest.param(429, b"9" * 400, id="400-digits"),
    pytest.param(503, b"9" * 20, id="20-digits"),
    pytest.param(429, b"-5", id="negative"),
    pytest.param(503, b"1.5", id="float"),
    pytest.param(429, b"soon, maybe", id="garbage"),
    pytest.param(503, b"\xff\xfe\xfd", id="not-utf8"),
    pytest.param(503, b"Fri, 31 Dec 9999 23:59:59 -2359", id="date-past-every-calendar"),
    pytest.param(429, b"Fri, 31 Dec 9999 23:59:59 GMT", id="date-far-future"),
]


@pytest.mark.parametrize(("code", "value"), ABSURD_RETRY_AFTER)
async def test_an_absurd_retry_after_is_ignored_and_the_schedule_applies(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    hostile: Hostile,
    worker: DeliveryWorker,
    code: int,
    value: bytes,
) -> None:
    clock = FrozenClock(runtime)
    created = await create_endpoint(client, tenant, hostile.url)
    hostile.script = [status(code, ("Retry-After", value))]
    await emit(runtime, tenant.tenant_id)

    delivery = await wait_until(lambda: recorded(runtime, created["id"]))
    assert delivery.status == "pending"
    assert delivery.last_http_status == code
    assert delivery.last_attempt_at == clock.now
    low, high = schedule_window(runtime, 1)
    assert delivery.next_attempt_at is not None
    assert low <= delivery.next_attempt_at - clock.now <= high

    clock.advance(minutes=1)
    await wait_until(lambda: _succeeded(runtime, created["id"], attempts=2))
    assert [r.headers["gatehouse-attempt"] for r in hostile.snapshot()] == ["1", "2"]


def _http_date(moment: datetime) -> bytes:
    from email.utils import format_datetime

    return format_datetime(moment, usegmt=True).encode()


@pytest.mark.parametrize("kind", ["seconds", "padded-seconds", "http-date", "date-in-the-past"])
async def test_a_valid_retry_after_inside_the_bound_is_honoured_in_real_seconds(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    hostile: Hostile,
    worker: DeliveryWorker,
    kind: str,
) -> None:
    clock = FrozenClock(runtime)
    clock.now = clock.now.replace(microsecond=0)  # an HTTP date has whole seconds
    wait = {"seconds": 60, "padded-seconds": 60, "http-date": 60, "date-in-the-past": 0}[kind]
    value = {
        "seconds": b"60",
        "padded-seconds": b" \t60 ",
        "http-date": _http_date(clock.now + timedelta(seconds=60)),
        "date-in-the-past": _http_date(clock.now - timedelta(days=400)),
    }[kind]
    created = await create_endpoint(client, tenant, hostile.url)
    hostile.script = [status(429, ("Retry-After", value))]
    await emit(runtime, tenant.tenant_id)
    if wait:
        delivery = await wait_until(lambda: recorded(runtime, created["id"]))
        assert delivery.status == "pending"
        assert delivery.next_attempt_at == clock.now + timedelta(seconds=wait)
        clock.advance(seconds=wait)
    await wait_until(lambda: _succeeded(runtime, created["id"], attempts=2))


async def _succeeded(runtime: Runtime, endpoint_id: str, *, attempts: int) -> bool:
    deliveries = await deliveries_of(runtime, endpoint_id)
    return [(d.status, d.attempts) for d in deliveries] == [("succeeded", attempts)]


async def test_one_receivers_absurd_answer_does_not_disturb_other_tenants(
    client: httpx.AsyncClient, runtime: Runtime, hostile: Hostile
) -> None:
    """Tenant A's receiver answers 503 with `Retry-After: ²` while B, C and D accept:
    all four outcomes are recorded, each good event reaches its receiver exactly once."""
    clock = FrozenClock(runtime)
    hostile.script = [status(503, ("Retry-After", "²".encode()))]
    tenants = [await make_tenant(runtime, name=f"Tenant {n}") for n in "ABCD"]
    with (
        running_receiver(Receiver()) as b,
        running_receiver(Receiver()) as c,
        running_receiver(Receiver()) as d,
    ):
        receivers = {"A": hostile.url, "B": b.url, "C": c.url, "D": d.url}
        endpoints = {
            name: (await create_endpoint(client, t, receivers[name]))["id"]
            for name, t in zip("ABCD", tenants, strict=True)
        }
        event_ids = {
            name: await emit(runtime, t.tenant_id) for name, t in zip("ABCD", tenants, strict=True)
        }
        stop = asyncio.Event()
        worker = DeliveryWorker(runtime, poll_seconds=0.05, lease_seconds=5)
        task = asyncio.create_task(worker.run(stop))
        try:
            for name in "BCD":
                await wait_until(lambda name=name: _succeeded(runtime, endpoints[name], attempts=1))
            delivery = await wait_until(lambda: recorded(runtime, endpoints["A"]))
            assert delivery.status == "pending"
            assert delivery.last_http_status == 503
            # Past every lease: anything left unrecorded would go out again now.
            clock.advance(minutes=1)
            await wait_until(lambda: _succeeded(runtime, endpoints["A"], attempts=2))
        finally:
            stop.set()
            await asyncio.wait_for(task, 30)
        for name, receiver in (("B", b), ("C", c), ("D", d)):
            assert [r.event_id for r in receiver.snapshot()] == [event_ids[name]]
            assert await _succeeded(runtime, endpoints[name], attempts=1)
    assert len(hostile.snapshot()) == 2


async def test_an_outcome_that_cannot_be_recorded_does_not_undo_the_others(
    client: httpx.AsyncClient,
    runtime: Runtime,
    hostile: Hostile,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One batch: four tenants' real attempts, one of whose outcomes the database refuses
    (a status no integer column holds, standing in for any failure to record one row).
    The three others are recorded once; the refused one keeps its lease and goes out again
    when the lease ends; no good event reaches its receiver twice."""
    tenants = [await make_tenant(runtime, name=f"Tenant {n}") for n in "ABCD"]
    with (
        running_receiver(Receiver()) as b,
        running_receiver(Receiver()) as c,
        running_receiver(Receiver()) as d,
    ):
        receivers = {"A": hostile.url, "B": b.url, "C": c.url, "D": d.url}
        endpoints = {
            name: (await create_endpoint(client, t, receivers[name]))["id"]
            for name, t in zip("ABCD", tenants, strict=True)
        }
        for t in tenants:
            await emit(runtime, t.tenant_id)
        claims = await Claims(runtime, timedelta(seconds=1)).claim(10)
        assert len(claims) == 4
        results = await asyncio.gather(*(attempt(runtime, claim) for claim in claims))
        assert all(result.success for result in results)
        batch = [
            Outcome(
                claim,
                PostResult(status=2**63, error="unrecordable")
                if claim.endpoint_id == endpoints["A"]
                else result,
                runtime.now(),
            )
            for claim, result in zip(claims, results, strict=True)
        ]
        with caplog.at_level(logging.ERROR, logger="gatehouse.webhooks"):
            tally = await Recorder(runtime).record(batch)
        assert (tally.succeeded, tally.failed) == (3, 0)
        assert any(
            "recording a webhook outcome failed" in r.getMessage()
            and getattr(r, "endpoint_id", None) == endpoints["A"]
            for r in caplog.records
        )
        for name in "BCD":
            assert await _succeeded(runtime, endpoints[name], attempts=1)
        [poisoned] = await deliveries_of(runtime, endpoints["A"])
        assert poisoned.status == "pending"
        assert poisoned.claim_token is not None

        # The refused one's lease ends; a worker sends it again, and nothing else.
        stop = asyncio.Event()
        worker = DeliveryWorker(runtime, poll_seconds=0.05, lease_seconds=5)
        task = asyncio.create_task(worker.run(stop))
        try:
            await wait_until(lambda: _succeeded(runtime, endpoints["A"], attempts=2))
        finally:
            stop.set()
            await asyncio.wait_for(task, 30)
        for name, receiver in (("B", b), ("C", c), ("D", d)):
            assert len(receiver.snapshot()) == 1, name
            assert await _succeeded(runtime, endpoints[name], attempts=1)
    assert [r.headers["gatehouse-attempt"] for r in hostile.snapshot()] == ["1", "2"]


HOSTILE_TEST_ANSWERS = [
    pytest.param(
        Answer(
            b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nhello",
            drip=(b"x",) * 40,
            interval=0.5,
        ),
        {"success": True, "httpStatus": 200, "error": None, "snippetStartsWith": "hello"},
        id="2xx-then-a-body-that-trickles",
    ),
    pytest.param(
        Answer(
            b"HTTP/1.1 500 Oops\r\nContent-Length: 1000\r\n\r\nslow",
            drip=(b"x",) * 40,
            interval=0.5,
        ),
        {"success": False, "httpStatus": 500, "error": "HTTP 500", "snippetStartsWith": "slow"},
        id="5xx-then-a-body-that-trickles",
    ),
    pytest.param(
        Answer(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            drip=(b"5\r\nhello\r\nzz\r\n",),
            interval=0.05,
        ),
        {"success": True, "httpStatus": 200, "error": None, "responseSnippet": "hello"},
        id="2xx-then-a-broken-body",
    ),
    pytest.param(
        # Head and broken framing in one segment: the parser refuses the answer whole.
        Answer(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n"),
        {"success": False, "httpStatus": None, "error": "protocol error"},
        id="2xx-and-broken-framing-in-one-segment",
    ),
    pytest.param(
        status(200, body=b"a" * 5_000_000),
        {"success": True, "httpStatus": 200, "error": None, "responseSnippet": "a" * 200},
        id="huge-body",
    ),
    pytest.param(
        status(500, body=b"\xff\xfe\x00ok\xe2\x82"),
        {"success": False, "httpStatus": 500, "error": "HTTP 500", "responseSnippet": "\x00ok"},
        id="invalid-utf8",
    ),
    pytest.param(
        status(302, ("Location", "http://127.0.0.1:9/elsewhere")),
        {"success": False, "httpStatus": 302, "error": "redirect (302) not followed"},
        id="redirect",
    ),
    pytest.param(
        status(503, *((f"X-Flood-{n}", "v" * 40) for n in range(1500))),
        {"success": False, "httpStatus": 503, "error": "HTTP 503"},
        id="1500-headers",
    ),
    pytest.param(
        status(200, ("X-Big", "a" * 300_000)),
        {"success": False, "httpStatus": None, "error": "protocol error"},
        id="header-block-over-100-KiB",
    ),
    pytest.param(
        Answer(b"HTTP/1.1 2OO OK\r\n\r\n"),
        {"success": False, "httpStatus": None, "error": "protocol error"},
        id="garbage-status-line",
    ),
    pytest.param(
        Answer(b""),
        {"success": False, "httpStatus": None, "responseSnippet": None},
        id="closed-without-an-answer",
    ),
]


@pytest.mark.parametrize(("answer", "expected"), HOSTILE_TEST_ANSWERS)
async def test_the_test_send_answers_200_whatever_the_receiver_does(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    hostile: Hostile,
    answer: Answer,
    expected: dict[str, object],
) -> None:
    created = await create_endpoint(client, tenant, hostile.url)
    hostile.script = [answer]
    response = await client.post(f"/v1/webhooks/{created['id']}/test", headers=tenant.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    expected = dict(expected)
    starts = expected.pop("snippetStartsWith", None)
    assert {key: body[key] for key in expected} == expected
    assert body["success"] or body["error"]
    if starts is not None:  # what arrived of the body before Gatehouse stopped reading
        assert body["responseSnippet"].startswith(starts)
    assert len(hostile.snapshot()) == 1
