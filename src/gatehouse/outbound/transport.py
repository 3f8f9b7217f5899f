"""Outbound POSTs to receivers, connected to a checked address (docs/reference/webhooks.md
§6.3, §6.8; docs/webhooks.md, "The outbound client").

`post_json` is the one place an outbound attempt starts and ends (webhook deliveries,
verification callbacks, test sends): it validates the URL, resolves the name once,
refuses any non-public address (unless allow_private), and connects to an address that
passed. The pin is aiohttp's resolver hook (`aiohttp.abc.AbstractResolver`): the
connector asks `_PinnedResolver` for the host's addresses and gets the one this attempt
checked, read from a per-attempt context variable, never a fresh lookup (the connector's
DNS cache is off, so every new connection asks). The request keeps the hostname for the
Host header, TLS SNI and certificate verification. Redirects are not followed (a 3xx is
a failure result), no proxy is taken from the environment, the connection gets 5 s and
the whole attempt — lookup, connection, request, status line, headers and what is read
of the body — 10 s, however slowly the receiver drips its answer. One pooled session
serves each event loop.

Whatever a receiver answers is read within bounds and never raises: a status or header
line over MAX_LINE bytes, or more than MAX_HEADER_LINES headers, is a protocol error; at
most MAX_HEADERS headers of at most MAX_HEADER_VALUE characters are kept, the body is
read for at most BODY_GRACE seconds once the status is in and at most _DRAIN_LIMIT bytes
(never decompressed), and every error is returned as short printable text
(docs/webhooks.md, "What a receiver can and cannot do to the worker").
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import socket
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult

from gatehouse.outbound import url_safety
from gatehouse.outbound.url_safety import UnsafeUrl

__all__ = ["PostResult", "close_client", "post_json", "trust_certificates"]

log = logging.getLogger("gatehouse.outbound")

CONNECT_TIMEOUT = 5.0
TOTAL_TIMEOUT = 10.0
# Read at most this much of a response (then drop the connection): enough to
# keep small answers' connections pooled without buffering large bodies.
_DRAIN_LIMIT = 64 * 1024
# Once the status is in, the body gets this long (within the total timeout); a body
# still coming is not waited for: the answer is its status.
BODY_GRACE = 1.0
# Headers kept from an answer; a longer value is dropped, never cut.
MAX_HEADERS = 64
MAX_HEADER_VALUE = 1024
# What the response parser accepts at all (beyond: a protocol error).
MAX_LINE = 8190
MAX_HEADER_LINES = 2048
MAX_ERROR = 300
# Connections the process keeps at most (open and idle together), and how long an idle
# one stays pooled.
MAX_CONNECTIONS = 1024
KEEPALIVE_SECONDS = 30.0
# aiohttp adds these unless told not to: a receiver gets exactly the caller's headers,
# plus Host and Content-Length.
_NO_AUTO_HEADERS = ("Accept", "Accept-Encoding", "User-Agent", "Content-Type")

# host -> address checked for the attempt running in this context.
_pins: contextvars.ContextVar[dict[str, str]] = contextvars.ContextVar("outbound_pins")


@dataclass
class PostResult:
    """What happened to one POST; `error` is set when no 2xx answer came back."""

    status: int | None
    headers: dict[str, str] = field(default_factory=dict)
    body_prefix: bytes = b""
    error: str | None = None
    latency_ms: float = 0.0

    @property
    def success(self) -> bool:
        return self.status is not None and 200 <= self.status <= 299


class _PinnedResolver(AbstractResolver):
    """Answers with the address checked for this attempt, never with a fresh lookup."""

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        address = (_pins.get(None) or {}).get(host.lower().rstrip("."))
        if address is None:
            raise OSError(f"no checked address for {host}")
        return [
            {
                "hostname": host,
                "host": address,
                "port": port,
                "family": socket.AF_INET6 if ":" in address else socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST,
            }
        ]

    async def close(self) -> None:
        return None


_sessions: dict[int, aiohttp.ClientSession] = {}
# Certificate authorities receivers are verified against; None: the system's defaults.
_ssl_context: ssl.SSLContext | None = None


def trust_certificates(context: ssl.SSLContext | None) -> None:
    """Verify receivers against `context` (a private CA in development and tests).

    Sessions already made keep their context; call before the first delivery.
    """
    global _ssl_context
    _ssl_context = context
    _sessions.clear()


def _loop_key() -> int:
    return id(asyncio.get_running_loop())


def _session() -> aiohttp.ClientSession:
    """The process's pooled session (one per event loop: connections are loop-bound)."""
    key = _loop_key()
    session = _sessions.get(key)
    if session is None or session.closed:
        connector = aiohttp.TCPConnector(
            resolver=_PinnedResolver(),
            use_dns_cache=False,  # every new connection asks the resolver: the pin
            ssl=_ssl_context or ssl.create_default_context(),
            limit=MAX_CONNECTIONS,
            keepalive_timeout=KEEPALIVE_SECONDS,
        )
        session = aiohttp.ClientSession(
            connector=connector,
            trust_env=False,  # no proxy, no .netrc from the environment
            skip_auto_headers=_NO_AUTO_HEADERS,
            auto_decompress=False,
            cookie_jar=aiohttp.DummyCookieJar(),
            max_line_size=MAX_LINE,
            max_field_size=MAX_LINE,
            max_headers=MAX_HEADER_LINES,
            raise_for_status=False,
        )
        _sessions[key] = session
    return session


async def close_client() -> None:
    """Close the current loop's pooled session (worker shutdown, tests)."""
    session = _sessions.pop(_loop_key(), None)
    if session is not None:
        await session.close()


def _pick_address(addresses: tuple[str, ...]) -> str:
    # Prefer IPv4: loopback test receivers and most hosts listen there.
    for address in addresses:
        if ":" not in address:
            return address
    return addresses[0]


def _printable(text: str) -> str:
    """`text` as short printable ASCII (errors are stored and shown)."""
    clean = "".join(c if " " <= c <= "~" else "?" for c in text[:MAX_ERROR])
    return clean or "failed"


def _bounded_headers(headers: Mapping[str, str]) -> dict[str, str]:
    kept: dict[str, str] = {}
    for name, value in headers.items():
        if len(kept) >= MAX_HEADERS:
            break
        if len(name) <= MAX_HEADER_VALUE and len(value) <= MAX_HEADER_VALUE:
            kept[name.lower()] = value
    return kept


def _describe(exc: BaseException) -> str:
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return "connect timeout"
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        return f"certificate verify failed: {exc.certificate_error}"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return f"connection failed: {exc.os_error}" if str(exc) else "connection failed"
    if isinstance(exc, aiohttp.ClientResponseError | aiohttp.ClientPayloadError):
        return "protocol error"  # the answer is not HTTP the parser accepts
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "connection closed without an answer"
    if isinstance(exc, aiohttp.ClientError | OSError):
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return f"{type(exc).__name__}"


async def post_json(
    url: str,
    body: bytes,
    headers: dict[str, str],
    *,
    allow_private: bool,
    connect_timeout: float = CONNECT_TIMEOUT,
    total_timeout: float = TOTAL_TIMEOUT,
    keep_body: int = 200,
) -> PostResult:
    """POST `body` to `url` with `headers`: one outbound attempt, start to end. Never
    raises, whatever the URL or the receiver.

    A 3xx answer is returned with its status and an `error` (redirects are
    failures and are not followed, docs/reference/webhooks.md §6.3).
    """
    started = time.perf_counter()

    def elapsed() -> float:
        return round((time.perf_counter() - started) * 1000, 3)

    try:
        async with asyncio.timeout(min(connect_timeout, total_timeout)):
            checked = await url_safety.check_url(url, allow_private=allow_private)
    except UnsafeUrl as exc:
        error = _printable(f"unsafe url: {exc}")
        return PostResult(status=None, error=error, latency_ms=elapsed())
    except TimeoutError:
        return PostResult(status=None, error="name resolution timed out", latency_ms=elapsed())
    except Exception as exc:  # a URL or name no rule foresaw: still a result
        return PostResult(status=None, error=_printable(_describe(exc)), latency_ms=elapsed())

    token = _pins.set({checked.host.rstrip("."): _pick_address(checked.addresses)})
    try:
        remaining = max(0.001, total_timeout - (time.perf_counter() - started))
        # The whole attempt's bound: a receiver dripping its status line or headers one
        # byte at a time is cut here, whatever the per-read timeouts would allow.
        async with asyncio.timeout(remaining):
            return await _exchange(url, body, headers, connect_timeout, keep_body, elapsed)
    except TimeoutError:
        return PostResult(status=None, error="timeout", latency_ms=elapsed())
    except (aiohttp.ClientError, OSError, ValueError) as exc:
        return PostResult(status=None, error=_printable(_describe(exc)), latency_ms=elapsed())
    except Exception as exc:  # nothing a receiver sends may raise out of here
        log.warning("unexpected error in an outbound POST: %s", type(exc).__name__)
        return PostResult(
            status=None, error=f"internal error: {type(exc).__name__}", latency_ms=elapsed()
        )
    finally:
        _pins.reset(token)


async def _exchange(
    url: str,
    body: bytes,
    headers: dict[str, str],
    connect_timeout: float,
    keep_body: int,
    elapsed: Callable[[], float],
) -> PostResult:
    timeout = aiohttp.ClientTimeout(total=None, connect=connect_timeout)
    response = await _session().post(
        url, data=body, headers=headers, allow_redirects=False, timeout=timeout
    )
    try:
        status = response.status
        result_headers = _bounded_headers(response.headers)
        prefix = await _read_prefix(response, keep_body)
    finally:
        if response.content.at_eof():
            response.release()  # the body was read to its end: the connection is reused
        else:
            response.close()
    error: str | None = None
    if 300 <= status <= 399:
        error = f"redirect ({status}) not followed"
    elif not 200 <= status <= 299:
        error = f"HTTP {status}"
    return PostResult(
        status=status,
        headers=result_headers,
        body_prefix=prefix,
        error=error,
        latency_ms=elapsed(),
    )


async def _read_prefix(response: aiohttp.ClientResponse, keep_body: int) -> bytes:
    """The first `keep_body` bytes of the body, reading at most _DRAIN_LIMIT bytes for at
    most BODY_GRACE seconds."""
    prefix = bytearray()
    seen = 0
    try:
        async with asyncio.timeout(BODY_GRACE):
            while seen < _DRAIN_LIMIT:
                chunk = await response.content.readany()
                if not chunk:
                    break
                if len(prefix) < keep_body:
                    prefix += chunk[: keep_body - len(prefix)]
                seen += len(chunk)
    except (TimeoutError, aiohttp.ClientError):
        pass  # the status is in: a body that stalls or breaks off is not waited for
    return bytes(prefix)
