"""post_json: pinned connection, no redirects, timeouts, errors returned
(docs/reference/webhooks.md §4.2, §6.3).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from gatehouse.outbound import url_safety
from gatehouse.outbound.transport import post_json
from tests.webhooks.receiver import Received, Receiver, free_port, running_receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver(Receiver()) as r:
        yield r


async def test_posts_body_and_headers_and_returns_status(receiver: Receiver) -> None:
    receiver.respond = lambda item: (202, {"x-answer": "yes"}, b"A" * 500)
    result = await post_json(
        receiver.url,
        b'{"a":1}',
        {"Content-Type": "application/json", "X-Extra": "1"},
        allow_private=True,
    )
    assert result.status == 202
    assert result.success
    assert result.error is None
    assert result.headers["x-answer"] == "yes"
    assert result.body_prefix == b"A" * 200
    assert result.latency_ms > 0
    [got] = receiver.snapshot()
    assert got.body == b'{"a":1}'
    assert got.headers["content-type"] == "application/json"
    assert got.headers["x-extra"] == "1"
    # Only the caller's headers plus what HTTP itself needs.
    assert set(got.headers) == {"host", "content-length", "content-type", "x-extra"}


async def test_redirect_is_a_failure_and_not_followed(receiver: Receiver) -> None:
    receiver.respond = lambda item: (302, {"location": receiver.url + "/elsewhere"}, b"")
    result = await post_json(receiver.url, b"{}", {}, allow_private=True)
    assert result.status == 302
    assert not result.success
    assert result.error is not None
    assert "redirect" in result.error
    assert len(receiver.snapshot()) == 1


async def test_non_2xx_is_a_failure_with_status(receiver: Receiver) -> None:
    receiver.respond = lambda item: 500
    result = await post_json(receiver.url, b"{}", {}, allow_private=True)
    assert result.status == 500
    assert not result.success
    assert result.error == "HTTP 500"


async def test_connection_refused_is_returned_not_raised() -> None:
    result = await post_json(f"http://127.0.0.1:{free_port()}/x", b"{}", {}, allow_private=True)
    assert result.status is None
    assert result.error is not None
    assert "connection failed" in result.error


async def test_total_timeout_is_enforced(receiver: Receiver) -> None:
    def slow(item: Received) -> int:
        time.sleep(5)
        return 200

    receiver.respond = slow
    started = time.monotonic()
    result = await post_json(receiver.url, b"{}", {}, allow_private=True, total_timeout=0.2)
    # Far below the receiver's 5 s: the client gave up, it did not wait for the answer.
    assert time.monotonic() - started < 3
    assert result.status is None
    assert result.error == "timeout"


async def test_connects_to_the_checked_address_without_a_second_lookup(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    lookups: list[str] = []

    async def fake_resolve(host: str, port: int) -> list[str]:
        lookups.append(host)
        return ["127.0.0.1"]

    monkeypatch.setattr(url_safety, "resolve_host", fake_resolve)
    port = receiver.url.split(":")[2].split("/")[0]
    # The system resolver knows nothing of this name: only the pin can reach the receiver.
    result = await post_json(
        f"http://pinned-receiver.invalid:{port}/hooks", b"{}", {}, allow_private=True
    )
    assert result.status == 200, result.error
    assert lookups == ["pinned-receiver.invalid"]
    [got] = receiver.snapshot()
    assert got.headers["host"] == f"pinned-receiver.invalid:{port}"


async def test_strict_mode_refuses_a_name_resolving_to_private_before_connecting(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def fake_resolve(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    monkeypatch.setattr(url_safety, "resolve_host", fake_resolve)
    result = await post_json("https://hooks.example.com/in", b"{}", {}, allow_private=False)
    assert result.status is None
    assert result.error is not None
    assert result.error.startswith("unsafe url")
    assert receiver.snapshot() == []


async def test_strict_mode_refuses_plain_http(receiver: Receiver) -> None:
    result = await post_json(receiver.url, b"{}", {}, allow_private=False)
    assert result.status is None
    assert result.error is not None
    assert "https" in result.error
    assert receiver.snapshot() == []


async def test_what_is_kept_of_an_answer_is_bounded() -> None:
    from gatehouse.outbound.transport import MAX_HEADER_VALUE, MAX_HEADERS
    from tests.webhooks.hostile import Hostile, running_hostile, status

    flood = [(f"x-flood-{n}", "v") for n in range(1500)]
    with running_hostile(Hostile()) as hostile:
        hostile.script = [
            status(503, ("Retry-After", "9" * (MAX_HEADER_VALUE + 1)), *flood),
        ]
        result = await post_json(hostile.url, b"{}", {}, allow_private=True)
    assert result.status == 503
    assert result.error == "HTTP 503"
    assert len(result.headers) == MAX_HEADERS
    assert "retry-after" not in result.headers  # too long: dropped, never cut
    assert all(len(value) <= MAX_HEADER_VALUE for value in result.headers.values())


async def test_a_status_that_came_is_kept_when_the_body_stalls() -> None:
    from tests.webhooks.hostile import Answer, Hostile, running_hostile

    stalled = Answer(
        b"HTTP/1.1 202 Accepted\r\nContent-Length: 100\r\n\r\nab", drip=(b"c",) * 40, interval=0.5
    )
    with running_hostile(Hostile(script=[stalled])) as hostile:
        result = await post_json(hostile.url, b"{}", {}, allow_private=True, total_timeout=5)
    assert result.status == 202
    assert result.success
    assert result.error is None
    assert result.body_prefix.startswith(b"ab")


async def test_a_receiver_dripping_its_status_line_is_cut_at_the_total_bound() -> None:
    from tests.webhooks.hostile import Answer, Hostile, running_hostile

    # Every byte comes in time for any per-read timeout; the whole answer would take 40 s.
    dripping = Answer(b"", drip=tuple(bytes([b]) for b in b"HTTP/1.1 200 OK\r\n" * 3), interval=0.5)
    with running_hostile(Hostile(script=[dripping])) as hostile:
        started = time.monotonic()
        result = await post_json(hostile.url, b"{}", {}, allow_private=True, total_timeout=2)
        took = time.monotonic() - started
    assert result.status is None
    assert result.error == "timeout"
    assert took < 2 + 1.5  # the bound, plus scheduling slack on a busy machine


async def test_no_proxy_is_taken_from_the_environment(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.webhooks.hostile import Hostile, running_hostile

    with running_hostile(Hostile()) as proxy:
        proxy_url = proxy.url.rsplit("/", 1)[0]
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
            monkeypatch.setenv(name, proxy_url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        result = await post_json(receiver.url, b"{}", {}, allow_private=True)
        assert result.status == 200, result.error
        assert proxy.snapshot() == []
    assert len(receiver.snapshot()) == 1


async def test_verification_callbacks_webhooks_and_test_sends_share_one_client() -> None:
    from gatehouse.verification import delivery as callbacks
    from gatehouse.webhooks import connectivity
    from gatehouse.webhooks.delivery import loop

    assert callbacks.post_json is post_json
    assert connectivity.post_json is post_json
    assert loop.post_json is post_json
