"""Structured JSON logs, with secrets redacted before anything is written.

The redaction filter runs on every record of every logger: API keys, staff
tokens, webhook secrets, sign-in link tokens and bearer values never reach a
log line, whatever a caller passes in.
"""

from __future__ import annotations

import logging
import re
import sys
from contextvars import ContextVar
from typing import Any, TextIO

import orjson

REDACTED = "[redacted]"
# The Service-Request-Id of the request being served, added to every log line.
REQUEST_ID: ContextVar[str | None] = ContextVar("gatehouse_request_id", default=None)
_PATTERNS = [
    re.compile(r"service_[a-z0-9]{12,32}_[A-Za-z0-9]{32,64}"),
    re.compile(r"staff_[a-z0-9]{12,32}_[A-Za-z0-9]{32,64}"),
    re.compile(r"whsec_[A-Za-z0-9_\-]{16,}"),
    re.compile(r"(/portal/login/)[A-Za-z0-9_\-]+"),
    re.compile(r"(?i)(bearer\s+)[^\s\"']+"),
    re.compile(
        r"(?i)(\"?(?:passphrase|callbackPassphrase|clientSecret|secret|token|apiKey)\"?\s*[:=]\s*\"?)[^\s\",}]+"
    ),
]


def redact(text: str) -> str:
    for pattern in _PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
        else:
            text = pattern.sub(REDACTED, text)
    return text


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        record.msg = redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


# Record attributes that are not extra fields (uvicorn's color_message duplicates message).
_STANDARD = set(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime", "color_message"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "at": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
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
        return redact(orjson.dumps(entry, default=str).decode())


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
    install_filter()


def install_filter() -> None:
    """Attach the redaction filter to every handler of the root logger."""
    root = logging.getLogger()
    for handler in root.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
