"""Structured JSON logs, with secrets redacted before anything is written.

The redaction filter runs on every record of every logger: API keys, staff
tokens, webhook secrets, sign-in link tokens, staff invite tokens and bearer
values never reach a log line, whatever a caller passes in. Nor do the values of a
database statement or of a validated input: exceptions, in tracebacks, arguments and
extra fields, are written by `safe_exception_message` (docs/platform.md, "Operations").
"""

from __future__ import annotations

import logging
import re
import sys
import time
import traceback
from contextvars import ContextVar
from typing import Any, TextIO

import orjson
from pydantic import ValidationError
from sqlalchemy.exc import StatementError

REDACTED = "[redacted]"
# The Service-Request-Id of the request being served, added to every log line.
REQUEST_ID: ContextVar[str | None] = ContextVar("gatehouse_request_id", default=None)
_PATTERNS = [
    re.compile(r"service_[a-z0-9]{12,32}_[A-Za-z0-9]{32,64}"),
    re.compile(r"staff_[a-z0-9]{12,32}_[A-Za-z0-9]{32,64}"),
    re.compile(r"whsec_[A-Za-z0-9_\-]{16,}"),
    re.compile(r"(/portal/login/)[A-Za-z0-9_\-]+"),
    re.compile(r"(/dashboard/invite/)[A-Za-z0-9_\-]+"),
    re.compile(r"(/console/start/)[A-Za-z0-9_\-]+"),
    re.compile(r"(?i)(bearer\s+)[^\s\"']+"),
    re.compile(
        r"(?i)(\"?(?:passphrase|callbackPassphrase|clientSecret|secret|token|apiKey)\"?\s*[:=]\s*\"?)[^\s\",}]+"
    ),
]


# Every pattern above needs one of these in the lower-cased text (the case-sensitive ones
# too), so ASCII text without any of them is returned as it is, without a regex search.
# Non-ASCII text always takes the patterns: under IGNORECASE a few non-ASCII letters
# match ASCII ones (U+017F, the long s, matches "s"), which lower-casing does not reproduce.
_HINTS = (
    "service_",
    "staff_",
    "whsec_",
    "/portal/login/",
    "/dashboard/invite/",
    "/console/start/",
    "bearer",
    "passphrase",
    "secret",
    "token",
    "apikey",
)


def redact(text: str) -> str:
    if text.isascii():
        lowered = text.lower()
        for hint in _HINTS:
            if hint in lowered:
                break
        else:
            return text
    for pattern in _PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
        else:
            text = pattern.sub(REDACTED, text)
    return text


# Where a database driver's exceptions come from: their messages may quote the values of
# the statement (PostgreSQL's `DETAIL: Key (email)=(…) already exists`, `invalid input
# syntax for type integer: "…"`), so only their structured fields are logged.
_DRIVER_MODULES = ("asyncpg", "psycopg", "sqlalchemy.dialects")
_DRIVER_FIELDS = (
    "sqlstate",
    "schema_name",
    "table_name",
    "column_name",
    "constraint_name",
    "data_type_name",
)
_CAUSE = "The above exception was the direct cause of the following exception:"
_CONTEXT = "During handling of the above exception, another exception occurred:"


def safe_exception_message(exc: BaseException) -> str:
    """`str(exc)`, except for the errors known to quote the values they were given:
    database errors keep their SQL and structured fields (SQLSTATE, table, column,
    constraint) but not their values or the driver's message; validation errors keep
    where and what, not the input."""
    if isinstance(exc, StatementError):
        orig = exc.orig
        reason = f"({_qualified(type(orig))}) {safe_exception_message(orig)}\n" if orig else ""
        return f"{reason}[SQL: {exc.statement}]\n[SQL parameters hidden]"
    if type(exc).__module__.startswith(_DRIVER_MODULES):
        fields = [
            f"{name}={getattr(exc, name)}" for name in _DRIVER_FIELDS if getattr(exc, name, None)
        ]
        return "[message withheld: it may quote values]" + (
            f" {' '.join(fields)}" if fields else ""
        )
    if isinstance(exc, ValidationError):
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'value'}: {error['msg']}"
            for error in exc.errors(include_url=False, include_input=False)
        )
        return f"{exc.error_count()} validation error(s) for {exc.title}: {problems}"
    return str(exc)


def _qualified(kind: type[BaseException]) -> str:
    module = kind.__module__
    return (
        kind.__qualname__ if module in ("builtins", "__main__") else f"{module}.{kind.__qualname__}"
    )


def format_exception(exc: BaseException) -> str:
    """A traceback like the standard one, chained exceptions included, with every message
    made by `safe_exception_message`."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        if current.__cause__ is not None:
            current = current.__cause__
        else:
            current = None if current.__suppress_context__ else current.__context__
    parts: list[str] = []
    for index in range(len(chain) - 1, -1, -1):
        item = chain[index]
        if index < len(chain) - 1:
            link = _CAUSE if item.__cause__ is chain[index + 1] else _CONTEXT
            parts.append(f"\n{link}\n\n")
        if item.__traceback__ is not None:
            parts.append("Traceback (most recent call last):\n")
            parts.extend(traceback.format_tb(item.__traceback__))
        parts.append(f"{_qualified(type(item))}: {safe_exception_message(item)}\n")
    return "".join(parts).rstrip("\n")


def _safe_arg(value: Any) -> Any:
    return safe_exception_message(value) if isinstance(value, BaseException) else value


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(_safe_arg(arg) for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: _safe_arg(arg) for key, arg in record.args.items()}
        message = record.getMessage()
        record.msg = redact(message)
        record.args = None
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            record.exc_text = format_exception(record.exc_info[1])
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


# Record attributes that are not extra fields (uvicorn's color_message duplicates message).
_STANDARD = set(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime", "color_message"}


_second: tuple[int, str] = (-1, "")


def timestamp(created: float) -> str:
    """`created` (seconds since the epoch) as RFC 3339 UTC with milliseconds."""
    global _second
    # Whole microseconds first, rounded as datetime rounds them (1.123 is 1.12299999...).
    seconds = int(created)
    micros = round((created - seconds) * 1_000_000)
    if micros == 1_000_000:
        seconds, micros = seconds + 1, 0
    cached = _second
    if cached[0] != seconds:
        # One strftime per second of logging; the tuple is replaced whole (thread-safe).
        cached = _second = (seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)))
    return f"{cached[1]}.{micros // 1000:03d}Z"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "at": timestamp(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = REQUEST_ID.get()
        if request_id is not None:
            entry["request_id"] = request_id
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_text:
            entry["exception"] = record.exc_text
        return redact(orjson.dumps(entry, default=_json_default).decode())


def _json_default(value: Any) -> str:
    return safe_exception_message(value) if isinstance(value, BaseException) else str(value)


def json_handler(stream: TextIO | None = None) -> logging.Handler:
    """A handler writing redacted JSON lines (what `configure` installs)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RedactingFilter())
    return handler


def configure(level: str = "INFO") -> None:
    """JSON lines on stderr for the service's and its libraries' loggers."""
    handler = json_handler()
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    # One line per request: the edge's, on gatehouse.access (uvicorn's would repeat it).
    logging.getLogger("uvicorn.access").disabled = True
    # httpx logs every outbound request at INFO with its full URL, query included (a
    # receiver's URL may carry its own token); the workers log each attempt themselves.
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
    # The JSON lines show none of these; skipping them saves a stack walk (the caller's
    # file and line) and a few lookups on every record.
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    install_filter()


def install_filter() -> None:
    """Attach the redaction filter to every handler of the root logger."""
    root = logging.getLogger()
    for handler in root.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
