"""Typed errors for every answer the tenant API can give (docs/reference/tenant-api.md §4.4).

Callers branch on the class (or on `code` and `status`), never on `message`
text. Unknown codes still raise a `GatehouseError` carrying what was sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "AlreadyExists",
    "AmbiguousResult",
    "Conflict",
    "FailedPrecondition",
    "GatehouseError",
    "Gone",
    "InProgress",
    "InvalidArgument",
    "MethodNotAllowed",
    "NetworkError",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "ServerError",
    "Unauthorized",
]


class GatehouseError(Exception):
    """An error answer of the API, or a failure to get one.

    `status` is the HTTP status (None when no response arrived), `code` the
    error code of docs/reference/tenant-api.md §4.4 (`invalid-argument`, ...), `request_id` the
    `Service-Request-Id` to quote to support, `details` the optional list of
    `{field, issue}` objects.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        request_id: str | None = None,
        details: list[dict[str, Any]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.request_id = request_id
        self.details = details or []
        self.headers = dict(headers or {})

    def __str__(self) -> str:
        parts = [self.message]
        if self.status is not None:
            parts.append(f"status={self.status}")
        if self.code:
            parts.append(f"code={self.code}")
        if self.request_id:
            parts.append(f"request_id={self.request_id}")
        return " ".join(parts)


class InvalidArgument(GatehouseError):
    """400 invalid-argument: bad email, label, query, cursor or subscription."""


class FailedPrecondition(GatehouseError):
    """400 failed-precondition: intake configuration, member cap, handover, recipient."""


class Gone(FailedPrecondition):
    """410 failed-precondition: the application was erased; never recreate it."""


class Unauthorized(GatehouseError):
    """401 unauthorized: malformed, unknown, revoked or inactive API key."""


class PermissionDenied(GatehouseError):
    """403 permission-denied: missing scope, suspended tenant or locked application."""


class NotFound(GatehouseError):
    """404 not-found: unknown route, or a missing, foreign or erased resource."""


class MethodNotAllowed(GatehouseError):
    """405 method-not-allowed."""


class Conflict(GatehouseError):
    """409: the request conflicts with stored state."""


class AlreadyExists(Conflict):
    """409 already-exists: the externalRef belongs to another applicant email.

    Do not retry unchanged (docs/reference/tenant-api.md §5.1 rule 5)."""


class InProgress(Conflict):
    """409 aborted: a request with the same Idempotency-Key is still running."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class RateLimited(GatehouseError):
    """429 resource-exhausted; `retry_after` is the server's Retry-After in seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServerError(GatehouseError):
    """5xx: the server failed. For a write this does not prove nothing was written."""


class NetworkError(GatehouseError):
    """No HTTP answer arrived (connection refused, reset, timed out)."""


class AmbiguousResult(GatehouseError):
    """A write whose outcome is unknown: it may or may not have taken effect.

    Raised instead of repeating a call that must not be repeated blindly
    (login sessions, secret rotation: docs/reference/tenant-api.md §5.15 rule 2,
    docs/reference/webhooks.md §4.9), or
    once retries of a write are exhausted. `idempotency_key` is the key the
    attempts carried (None when sent without one): pass it again as
    `idempotency_key=` to repeat the same intent safely, because the server
    then replays the first outcome instead of acting twice (docs/reference/tenant-api.md §4.6).
    `cause` is the last error seen.
    """

    def __init__(
        self,
        message: str,
        *,
        idempotency_key: str | None,
        cause: BaseException | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(message, **kwargs)
        self.idempotency_key = idempotency_key
        self.cause = cause


_BY_CODE: dict[str, type[GatehouseError]] = {
    "invalid-argument": InvalidArgument,
    "failed-precondition": FailedPrecondition,
    "unauthorized": Unauthorized,
    "permission-denied": PermissionDenied,
    "not-found": NotFound,
    "method-not-allowed": MethodNotAllowed,
    "already-exists": AlreadyExists,
    "aborted": InProgress,
    "resource-exhausted": RateLimited,
}

_BY_STATUS: dict[int, type[GatehouseError]] = {
    400: InvalidArgument,
    401: Unauthorized,
    403: PermissionDenied,
    404: NotFound,
    405: MethodNotAllowed,
    409: Conflict,
    410: Gone,
    429: RateLimited,
}


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After as seconds (integer or decimal seconds; HTTP dates are converted)."""
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        from datetime import UTC, datetime
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    if seconds != seconds or seconds < 0:  # NaN or negative
        return 0.0 if seconds == seconds else None
    return seconds


def error_from_response(status: int, headers: Mapping[str, str], body: Any) -> GatehouseError:
    """The typed error for an HTTP error answer (docs/reference/tenant-api.md §4.4)."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        error = {}
    code = error.get("code") if isinstance(error.get("code"), str) else None
    message = error.get("message") if isinstance(error.get("message"), str) else None
    request_id = error.get("requestId") if isinstance(error.get("requestId"), str) else None
    request_id = request_id or headers.get("service-request-id")
    raw_details = error.get("details")
    details = (
        [d for d in raw_details if isinstance(d, dict)] if isinstance(raw_details, list) else []
    )
    if status >= 500:
        cls: type[GatehouseError] = ServerError
    elif status == 410:
        cls = Gone
    elif code in _BY_CODE:
        cls = _BY_CODE[code]
    else:
        cls = _BY_STATUS.get(status, GatehouseError)
    kwargs: dict[str, Any] = {
        "status": status,
        "code": code,
        "request_id": request_id,
        "details": details,
        "headers": headers,
    }
    text = message or f"HTTP {status}"
    if cls in (RateLimited, InProgress):
        kwargs["retry_after"] = parse_retry_after(headers.get("retry-after"))
    return cls(text, **kwargs)
