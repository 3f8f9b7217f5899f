"""Outbound POSTs to receivers, connected to a checked address (docs/reference/webhooks.md
§6.3, §6.8).

`post_json` validates the URL, resolves the name once, refuses any
non-public address (unless allow_private), and connects to an address that
passed: the connection is pinned through a network backend that looks the
address up in a per-request context variable and never resolves again, while
the request keeps the hostname for the Host header, TLS SNI and certificate
verification. Redirects are not followed (a 3xx is a failure result), the
connection limit is 5 s and the whole exchange 10 s. One pooled client serves
the whole process.

Whatever a receiver answers is read within bounds and never raises: a header
block over 100 KiB is a protocol error (h11), at most MAX_HEADERS headers of
at most MAX_HEADER_VALUE characters are kept, the body is read for at most
BODY_GRACE seconds once the status is in and at most _DRAIN_LIMIT bytes, and
every error is returned as short printable text (docs/webhooks.md, "What a
receiver can and cannot do to the worker").
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import ssl
import time
import typing
from dataclasses import dataclass, field

import httpcore
import httpx

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
MAX_ERROR = 300

# host -> address chosen for the request running in this context.
_pins: contextvars.ContextVar[dict[str, str]] = contextvars.ContextVar("webhook_pins")


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


class _PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects to the address pinned for the host, never to a fresh lookup."""

    def __init__(self) -> None:
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        pins = _pins.get(None) or {}
        address = pins.get(host.lower())
        if address is None:
            raise httpcore.ConnectError(f"no checked address for {host}")
        return await self._inner.connect_tcp(
            address,
            port,
            timeout=timeout,
            local_address=local_address,
            socket_options=socket_options,
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not receivers")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


_clients: dict[int, httpx.AsyncClient] = {}
# Certificate authorities receivers are verified against; None: the default (certifi).
_ssl_context: ssl.SSLContext | None = None


def trust_certificates(context: ssl.SSLContext | None) -> None:
    """Verify receivers against `context` (a private CA in development and tests).

    Clients already made keep their context; call before the first delivery.
    """
    global _ssl_context
    _ssl_context = context
    _clients.clear()


def _loop_key() -> int:
    return id(asyncio.get_running_loop())


def _client() -> httpx.AsyncClient:
    """The process's pooled client (one per event loop: pools are loop-bound)."""
    key = _loop_key()
    client = _clients.get(key)
    if client is None or client.is_closed:
        transport = httpx.AsyncHTTPTransport(
            limits=httpx.Limits(max_connections=256, max_keepalive_connections=64),
            trust_env=False,
        )
        # Same pool settings, but with the pinning network backend.
        transport._pool = httpcore.AsyncConnectionPool(
            ssl_context=_ssl_context or httpx.create_ssl_context(trust_env=False),
            max_connections=256,
            max_keepalive_connections=64,
            keepalive_expiry=30.0,
            network_backend=_PinnedBackend(),
        )
        client = httpx.AsyncClient(transport=transport, follow_redirects=False, trust_env=False)
        # Send exactly the caller's headers (plus Host and Content-Length).
        for name in list(client.headers):
            del client.headers[name]
        _clients[key] = client
    return client


async def close_client() -> None:
    """Close the current loop's pooled client (worker shutdown, tests)."""
    client = _clients.pop(_loop_key(), None)
    if client is not None:
        await client.aclose()


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


def _bounded_headers(headers: httpx.Headers) -> dict[str, str]:
    kept: dict[str, str] = {}
    for name, value in headers.items():
        if len(kept) >= MAX_HEADERS:
            break
        if len(name) <= MAX_HEADER_VALUE and len(value) <= MAX_HEADER_VALUE:
            kept[name.lower()] = value
    return kept


def _describe(exc: BaseException) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return "connect timeout"
    if isinstance(exc, httpx.TimeoutException | TimeoutError):
        return "timeout"
    if isinstance(exc, httpx.ConnectError):
        return f"connection failed: {exc}" if str(exc) else "connection failed"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "protocol error"
    if isinstance(exc, httpx.HTTPError):
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
    """POST `body` to `url` with `headers`; never raises, whatever the URL or the receiver.

    A 3xx answer is returned with its status and an `error` (redirects are
    failures and are not followed, docs/reference/webhooks.md §6.3).
    """
    started = time.perf_counter()

    def elapsed() -> float:
        return round((time.perf_counter() - started) * 1000, 3)

    try:
        async with asyncio.timeout(connect_timeout):
            checked = await url_safety.check_url(url, allow_private=allow_private)
    except UnsafeUrl as exc:
        error = _printable(f"unsafe url: {exc}")
        return PostResult(status=None, error=error, latency_ms=elapsed())
    except TimeoutError:
        return PostResult(status=None, error="name resolution timed out", latency_ms=elapsed())
    except Exception as exc:  # a URL or name no rule foresaw: still a result
        return PostResult(status=None, error=_printable(_describe(exc)), latency_ms=elapsed())

    token = _pins.set({checked.host: _pick_address(checked.addresses)})
    try:
        timeout = httpx.Timeout(total_timeout, connect=connect_timeout, pool=connect_timeout)
        remaining = max(0.001, total_timeout - (time.perf_counter() - started))
        async with asyncio.timeout(remaining):
            return await _exchange(url, body, headers, timeout, keep_body, elapsed)
    except TimeoutError:
        return PostResult(status=None, error="timeout", latency_ms=elapsed())
    except (httpx.HTTPError, OSError, httpcore.ConnectError) as exc:
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
    timeout: httpx.Timeout,
    keep_body: int,
    elapsed: typing.Callable[[], float],
) -> PostResult:
    client = _client()
    async with client.stream(
        "POST", url, content=body, headers=headers, timeout=timeout
    ) as response:
        status = response.status_code
        result_headers = _bounded_headers(response.headers)
        prefix = bytearray()
        seen = 0
        try:
            async with asyncio.timeout(BODY_GRACE):
                async for chunk in response.aiter_raw():
                    if len(prefix) < keep_body:
                        prefix += chunk[: keep_body - len(prefix)]
                    seen += len(chunk)
                    if seen >= _DRAIN_LIMIT:
                        break
        except (TimeoutError, httpx.HTTPError):
            pass  # the status is in: a body that stalls or breaks off is not waited for
    error: str | None = None
    if 300 <= status <= 399:
        error = f"redirect ({status}) not followed"
    elif not 200 <= status <= 299:
        error = f"HTTP {status}"
    return PostResult(
        status=status,
        headers=result_headers,
        body_prefix=bytes(prefix),
        error=error,
        latency_ms=elapsed(),
    )
