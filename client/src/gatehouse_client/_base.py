"""What the sync and async clients share: configuration, request headers,
reading answers and turning failures into typed errors and retry decisions."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TypeVar

import httpx

from gatehouse_client._calls import Call
from gatehouse_client._errors import (
    AmbiguousResult,
    GatehouseError,
    NetworkError,
    error_from_response,
)
from gatehouse_client._retry import Backoff, Decision, decide
from gatehouse_client._version import __version__

T = TypeVar("T")

USER_AGENT = f"gatehouse-client/{__version__}"

# Failures where the connection never opened: the request was not sent.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.UnsupportedProtocol)


class BaseClient:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float | httpx.Timeout = 10.0,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_retry_after: float = 60.0,
        rng: random.Random | None = None,
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required")
        if not api_key:
            raise ValueError("api_key is required")
        if max_retries < 0:
            raise ValueError("max_retries must not be negative")
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = Backoff(base=backoff_base, cap=backoff_max, max_retry_after=max_retry_after)
        self._rng = rng

    def __repr__(self) -> str:  # never shows the API key
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    def _default_headers(self) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self._api_key}",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
        }

    @staticmethod
    def _headers(call: Call[Any]) -> dict[str, str]:
        return {"Idempotency-Key": call.idempotency_key} if call.idempotency_key else {}

    @staticmethod
    def _success(call: Call[T], response: httpx.Response) -> T:
        return call.parse(response.status_code, _json_or_none(response))

    def _after_response(
        self, call: Call[Any], response: httpx.Response, retries: int
    ) -> tuple[GatehouseError, Decision]:
        error = error_from_response(response.status_code, response.headers, _json_or_none(response))
        retry_after = getattr(error, "retry_after", None)
        decision = decide(
            safety=call.safety,
            has_key=call.idempotency_key is not None,
            can_reconcile=call.reconcile is not None,
            retries_done=retries,
            max_retries=self.max_retries,
            backoff=self.backoff,
            status=response.status_code,
            code=error.code,
            retry_after=retry_after,
            rng=self._rng,
        )
        return error, decision

    def _after_transport_error(
        self, call: Call[Any], exc: httpx.TransportError, retries: int
    ) -> tuple[GatehouseError, Decision]:
        sent = not isinstance(exc, _NOT_SENT)
        error = NetworkError(
            f"{type(exc).__name__} on {call.method} {call.path}"
            + ("" if sent else " (request not sent)")
        )
        decision = decide(
            safety=call.safety,
            has_key=call.idempotency_key is not None,
            can_reconcile=call.reconcile is not None,
            retries_done=retries,
            max_retries=self.max_retries,
            backoff=self.backoff,
            status=None,
            sent=sent,
            rng=self._rng,
        )
        return error, decision

    @staticmethod
    def _ambiguous(call: Call[Any], error: GatehouseError) -> AmbiguousResult:
        hint = (
            f"; repeat with idempotency_key={call.idempotency_key!r} to get the first outcome"
            if call.idempotency_key
            else "; read the current state before repeating"
        )
        return AmbiguousResult(
            f"{call.method} {call.path} may or may not have taken effect ({error.message}){hint}",
            idempotency_key=call.idempotency_key,
            cause=error,
            status=error.status,
            code=error.code,
            request_id=error.request_id,
        )


def _json_or_none(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return None


SleepFn = Callable[[float], None]
