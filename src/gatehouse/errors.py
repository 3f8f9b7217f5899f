"""Error kinds and the one exception every layer raises (docs/reference/tenant-api.md §4.4).

Features and domain rules raise `GatehouseError` (or a domain subclass); they know no HTTP.
The web platform maps every one of them to the documented body
`{"error": {"code", "message", "requestId", "details"?}}` in one handler (`web/handlers.py`);
the dashboard and portal read `field` to mark the form field at fault.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple


class ErrorKind(NamedTuple):
    """An answer class: the HTTP status a surface gives it and the documented `code`."""

    status: int
    code: str


INVALID_ARGUMENT = ErrorKind(400, "invalid-argument")
FAILED_PRECONDITION = ErrorKind(400, "failed-precondition")
UNAUTHORIZED = ErrorKind(401, "unauthorized")
PERMISSION_DENIED = ErrorKind(403, "permission-denied")
NOT_FOUND = ErrorKind(404, "not-found")
METHOD_NOT_ALLOWED = ErrorKind(405, "method-not-allowed")
ALREADY_EXISTS = ErrorKind(409, "already-exists")
ABORTED = ErrorKind(409, "aborted")
GONE = ErrorKind(410, "failed-precondition")
PAYLOAD_TOO_LARGE = ErrorKind(413, "invalid-argument")
RESOURCE_EXHAUSTED = ErrorKind(429, "resource-exhausted")
INTERNAL = ErrorKind(500, "internal")


class GatehouseError(Exception):
    """An error answered with the documented body; carries no secrets."""

    def __init__(
        self,
        kind: tuple[int, str],
        message: str,
        *,
        details: Sequence[Mapping[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code, self.code = kind
        self.message = message
        self.details = [dict(d) for d in details] if details else None
        self.headers = dict(headers) if headers else {}

    @property
    def field(self) -> str | None:
        """The input field at fault (the first of `details`), for forms to mark."""
        return self.details[0].get("field") if self.details else None

    @property
    def issue(self) -> str | None:
        """What is wrong with that field (the first of `details`)."""
        return self.details[0].get("issue") if self.details else None


def invalid_argument(
    message: str, field: str | None = None, issue: str | None = None
) -> GatehouseError:
    details = [{"field": field, "issue": issue or message}] if field else None
    return GatehouseError(INVALID_ARGUMENT, message, details=details)


def failed_precondition(message: str) -> GatehouseError:
    return GatehouseError(FAILED_PRECONDITION, message)


def not_found(message: str = "Not found.") -> GatehouseError:
    return GatehouseError(NOT_FOUND, message)


def permission_denied(message: str) -> GatehouseError:
    return GatehouseError(PERMISSION_DENIED, message)


def gone(message: str = "The application was erased.") -> GatehouseError:
    return GatehouseError(GONE, message)
