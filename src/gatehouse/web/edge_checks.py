"""The edge's checks (web/edge.py), in the order docs/reference/tenant-api.md §4.1 gives.

Each check looks at one thing of an `Exchange` (web/edge_exchange.py) and returns an
`Answer` that replaces the route's, or None to go on. `REQUEST_CHECKS` read the request
line and headers only; `BODY_CHECKS` read a body the routes do not check themselves (a
form, JSON posted to a page) and, when it passes, hand it to the route unchanged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.types import ASGIApp

from gatehouse.domain.numbers import decimal_or_none
from gatehouse.web.edge_answers import refuse, refuse_too_large, send_json
from gatehouse.web.edge_bodies import chunks_of, read_body, replay, replay_spool, spool_body
from gatehouse.web.edge_exchange import BodyTooLarge, Exchange
from gatehouse.web.edge_request import PLAIN_QUERY, is_page_upload, surface_of
from gatehouse.web.text import (
    check_form_body,
    check_json_body,
    check_request_line_and_headers,
    is_form,
    is_json,
)


class Answer:
    """What the edge answers in place of the route (`app`: the route, for an answer that
    lets it answer)."""

    async def send(self, exchange: Exchange, app: ASGIApp) -> None:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Refusal(Answer):
    """A refusal in the shape of the request's surface (web/edge_answers.py)."""

    status: int
    message: str
    field: str
    issue: str

    async def send(self, exchange: Exchange, app: ASGIApp) -> None:
        await refuse(
            exchange.deliver, exchange.path, self.status, self.message, self.field, self.issue
        )


@dataclass(frozen=True, slots=True)
class Empty(Answer):
    """A status without a body (OPTIONS)."""

    status: int

    async def send(self, exchange: Exchange, app: ASGIApp) -> None:
        start = {"type": "http.response.start", "status": self.status, "headers": []}
        await exchange.deliver(start)
        await exchange.deliver({"type": "http.response.body", "body": b""})


@dataclass(frozen=True, slots=True)
class TooLarge(Answer):
    """The 413 of a body over its surface's bound."""

    async def send(self, exchange: Exchange, app: ASGIApp) -> None:
        await refuse_too_large(exchange.deliver, exchange.path, exchange.limit)


@dataclass(frozen=True, slots=True)
class PageJsonRefusal(Answer):
    """The 400 of JSON posted to a page route: `{"message"}`, as those routes answer."""

    message: str

    async def send(self, exchange: Exchange, app: ASGIApp) -> None:
        await send_json(exchange.deliver, 400, {"message": self.message})


@dataclass(frozen=True, slots=True)
class Gone(Answer):
    """The client left before its body was read: nothing to answer."""

    async def send(self, exchange: Exchange, app: ASGIApp) -> None:
        return None


@dataclass(frozen=True, slots=True)
class UnreadBody(Answer):
    """The route answers without its body: the portal's page uploads refuse a declared
    length over their bound with their own page, translated and beside the file input;
    should one read all the same, the first read ends in the 413."""

    async def send(self, exchange: Exchange, app: ASGIApp) -> None:
        await app(exchange.scope, exchange.refused_receive, exchange.send_from_app)
        if exchange.too_large:
            raise BodyTooLarge


_OPTIONS = Empty(405)

Check = Callable[[Exchange], Answer | None]
BodyCheck = Callable[[Exchange], Awaitable[Answer | None]]


def options_405(exchange: Exchange) -> Answer | None:
    """OPTIONS is answered 405 with an empty body, on every path."""
    return _OPTIONS if exchange.scope["method"] == "OPTIONS" else None


def request_line(exchange: Exchange) -> Answer | None:
    """Control characters in the path, the query string or a header the service reads."""
    query: bytes = exchange.scope.get("query_string", b"")
    problem = check_request_line_and_headers(
        exchange.path, b"" if PLAIN_QUERY.fullmatch(query) else query, exchange.scope["headers"]
    )
    if problem is None:
        return None
    return Refusal(400, problem.message, problem.field, problem.issue)


def content_length(exchange: Exchange) -> Answer | None:
    """A Content-Length that is a number of bytes (kept in `exchange.length`)."""
    if not exchange.declared:
        return None  # no body declared: `exchange.length` stays 0
    length = decimal_or_none(exchange.declared)
    if length is None or length < 0:
        message = "Content-Length must be a number of bytes."
        return Refusal(400, message, "Content-Length", "not a length")
    exchange.length = length
    return None


def declared_size(exchange: Exchange) -> Answer | None:
    """A declared length over the surface's bound: 413 before anything is read (a page
    upload's route answers it itself)."""
    if exchange.length <= exchange.limit:
        return None
    if is_page_upload(exchange.path, exchange.content_type):
        return UnreadBody()
    return TooLarge()


REQUEST_CHECKS: tuple[Check, ...] = (options_405, request_line, content_length, declared_size)


def first_answer(exchange: Exchange) -> Answer | None:
    """The answer of the first of `REQUEST_CHECKS` that has one."""
    for check in REQUEST_CHECKS:
        answer = check(exchange)
        if answer is not None:
            return answer
    return None


async def form_body(exchange: Exchange) -> Answer | None:
    """A form is read here (within its bound) and checked as the route will parse it."""
    if not is_form(exchange.content_type):
        return None
    spooled = await spool_body(exchange.bounded_receive)
    if spooled is None:
        return Gone()
    exchange.spools.append(spooled)
    problem = await check_form_body(Headers(scope=exchange.scope), chunks_of(spooled))
    if problem is not None:
        return Refusal(400, problem.message, problem.field, problem.issue)
    exchange.app_receive = replay_spool(spooled, exchange.receive)
    return None


async def page_json(exchange: Exchange) -> Answer | None:
    """JSON posted to a page route (the dashboard's passkey steps): the JSON surfaces
    check theirs in web/body.py; these routes parse their own."""
    if not is_json(exchange.content_type) or surface_of(exchange.path) != "page":
        return None
    body = await read_body(exchange.bounded_receive)
    if body is None:
        return Gone()
    problem = check_json_body(body)
    if problem is not None:
        return PageJsonRefusal(problem.message)
    exchange.app_receive = replay(body, exchange.receive)
    return None


BODY_CHECKS: tuple[BodyCheck, ...] = (form_body, page_json)


async def body_answer(exchange: Exchange) -> Answer | None:
    """The answer of the first of `BODY_CHECKS` that has one."""
    for check in BODY_CHECKS:
        answer = await check(exchange)
        if answer is not None:
            return answer
    return None
