"""The edge's checks one by one (web/edge_checks.py), each on a real `Exchange`
(web/edge_exchange.py) built from an ASGI scope, without the app behind the edge."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from starlette.types import Message

from gatehouse.settings import Settings
from gatehouse.web import edge_checks
from gatehouse.web.edge_checks import (
    Empty,
    Gone,
    PageJsonRefusal,
    Refusal,
    TooLarge,
    UnreadBody,
    content_length,
    declared_size,
    form_body,
    options_405,
    page_json,
    request_line,
)
from gatehouse.web.edge_exchange import BodyTooLarge, Exchange
from tests.conftest import make_settings


@pytest.fixture
def plain_settings(tmp_path: Any) -> Settings:
    return make_settings(f"sqlite:///{tmp_path / 'unused.db'}")


class Peer:
    """The server side of one exchange: the body chunks it hands over, what it was sent."""

    def __init__(self, chunks: Sequence[bytes] = (b"",), *, disconnect: bool = False) -> None:
        self.messages: list[Message] = [
            {"type": "http.request", "body": chunk, "more_body": n < len(chunks) - 1}
            for n, chunk in enumerate(chunks)
        ]
        if disconnect:
            self.messages = [{"type": "http.disconnect"}]
        self.sent: list[Message] = []

    async def receive(self) -> Message:
        if self.messages:
            return self.messages.pop(0)
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        self.sent.append(message)


def exchange(
    settings: Settings,
    path: str = "/v1/things",
    *,
    method: str = "POST",
    headers: Sequence[tuple[bytes, bytes]] = (),
    query: bytes = b"",
    peer: Peer | None = None,
) -> Exchange:
    peer = peer or Peer()
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "headers": list(headers),
        "client": ("127.0.0.1", 40000),
    }
    made = Exchange(scope, peer.receive, peer.send, settings)
    return made


def test_a_trailing_slash_is_folded(plain_settings: Settings) -> None:
    made = exchange(plain_settings, "/v1/things/")
    assert made.path == "/v1/things"
    assert made.scope["raw_path"] == b"/v1/things"
    made.close()


def test_options_is_an_empty_405(plain_settings: Settings) -> None:
    assert options_405(exchange(plain_settings, method="OPTIONS")) == Empty(405)
    assert options_405(exchange(plain_settings, method="GET")) is None


def test_control_characters_in_the_request_line_are_refused(plain_settings: Settings) -> None:
    answer = request_line(exchange(plain_settings, "/v1/th\x01ngs"))
    assert isinstance(answer, Refusal)
    assert (answer.status, answer.field) == (400, "path")
    assert request_line(exchange(plain_settings, query=b"a=%01")) is not None
    assert request_line(exchange(plain_settings, query=b"a=b&c=d")) is None


@pytest.mark.parametrize("declared", [b"abc", b"-1", b"1e3"])
def test_a_content_length_that_is_no_length_is_refused(
    plain_settings: Settings, declared: bytes
) -> None:
    answer = content_length(exchange(plain_settings, headers=[(b"content-length", declared)]))
    assert answer == Refusal(
        400, "Content-Length must be a number of bytes.", "Content-Length", "not a length"
    )


def test_a_content_length_is_kept(plain_settings: Settings) -> None:
    made = exchange(plain_settings, headers=[(b"content-length", b"12")])
    assert content_length(made) is None
    assert made.length == 12


def test_a_declared_length_over_the_bound(plain_settings: Settings) -> None:
    json = [(b"content-type", b"application/json")]
    made = exchange(plain_settings, headers=json)
    made.length = made.limit
    assert declared_size(made) is None
    made.length = made.limit + 1
    assert declared_size(made) == TooLarge()
    upload = [(b"content-type", b"multipart/form-data; boundary=x")]
    page = exchange(plain_settings, "/portal/upload-documents", headers=upload)
    page.length = page.limit + 1
    assert declared_size(page) == UnreadBody()  # the portal's page answers it itself


FORM = [(b"content-type", b"application/x-www-form-urlencoded")]


async def test_a_clean_form_is_handed_to_the_route_unchanged(plain_settings: Settings) -> None:
    made = exchange(plain_settings, "/dashboard/x", headers=FORM, peer=Peer([b"a=1&", b"b=2"]))
    assert await form_body(made) is None
    handed = []
    while True:
        message = await made.app_receive()
        handed.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    assert b"".join(handed) == b"a=1&b=2"
    made.close()


async def test_a_form_with_a_control_character_is_refused(plain_settings: Settings) -> None:
    made = exchange(plain_settings, "/dashboard/x", headers=FORM, peer=Peer([b"name=a%01b"]))
    answer = await form_body(made)
    assert isinstance(answer, Refusal)
    assert (answer.status, answer.field) == (400, "name")
    made.close()


async def test_a_form_whose_client_left_is_gone(plain_settings: Settings) -> None:
    made = exchange(plain_settings, headers=FORM, peer=Peer(disconnect=True))
    assert await form_body(made) == Gone()
    assert await form_body(exchange(plain_settings)) is None  # not a form: not read


async def test_a_form_over_its_bound_stops_the_read(plain_settings: Settings) -> None:
    made = exchange(plain_settings, "/dashboard/x", headers=FORM, peer=Peer([b"a=" + b"x" * 10]))
    made.limit = 5
    with pytest.raises(BodyTooLarge):
        await form_body(made)
    assert made.too_large
    made.close()


JSON = [(b"content-type", b"application/json")]


async def test_json_posted_to_a_page_is_checked(plain_settings: Settings) -> None:
    bad = exchange(
        plain_settings, "/dashboard/passkeys", headers=JSON, peer=Peer([b'{"a":"\x01"}'])
    )
    answer = await page_json(bad)
    assert isinstance(answer, PageJsonRefusal)
    good = exchange(plain_settings, "/dashboard/passkeys", headers=JSON, peer=Peer([b'{"a":1}']))
    assert await page_json(good) is None
    assert (await good.app_receive())["body"] == b'{"a":1}'
    # JSON surfaces check their own bodies (web/body.py): not read here.
    api = exchange(plain_settings, "/v1/things", headers=JSON, peer=Peer([b'{"a":"\x01"}']))
    assert await page_json(api) is None
    assert api.received == 0


async def test_the_request_id_goes_on_every_answer(plain_settings: Settings) -> None:
    peer = Peer()
    made = exchange(plain_settings, peer=peer)
    await Empty(405).send(made, app=None)  # type: ignore[arg-type]
    start = peer.sent[0]
    assert start["status"] == 405
    assert (b"service-request-id", made.request_id.encode()) in start["headers"]
    assert made.status == 405
    made.close()


def test_the_checks_run_in_the_documented_order() -> None:
    """docs/reference/tenant-api.md §4.1: OPTIONS, the request line, the length, its bound."""
    assert (options_405, request_line, content_length, declared_size) == edge_checks.REQUEST_CHECKS
    assert (form_body, page_json) == edge_checks.BODY_CHECKS
