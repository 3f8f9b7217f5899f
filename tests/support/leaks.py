"""Every log line of the test session, and the check that none leaks a secret.

The capture handler is the production one (JSON lines, redaction filter), so
a broken redaction rule makes the session-end check fail. Secrets are found
two ways: the exact values the factories issued (`remember`), and loose
shapes written independently of the redaction patterns.
"""

from __future__ import annotations

import io
import logging
import re

from gatehouse.logs import json_handler

_ISSUED: set[str] = set()

# Looser than the redaction patterns on purpose: they must not share a bug.
LEAK_PATTERNS = [
    re.compile(r"service_[a-z0-9]{6,}_[A-Za-z0-9]{16,}"),
    re.compile(r"staff_[a-z0-9]{6,}_[A-Za-z0-9]{16,}"),
    re.compile(r"whsec_[A-Za-z0-9_\-]{12,}"),
    re.compile(r"/portal/login/(?!\[redacted\])[A-Za-z0-9_\-]{8,}"),
    re.compile(r"/dashboard/invite/(?!\[redacted\])[A-Za-z0-9_\-]{8,}"),
    re.compile(r"otpauth://"),
]


def remember(secret: str) -> None:
    """Register a secret a test issued; no log line may contain it."""
    if secret:
        _ISSUED.add(secret)


class CapturingHandler(logging.Handler):
    """Collects each record exactly as the production JSON handler writes it."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self._stream = io.StringIO()
        self._inner = json_handler(self._stream)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self._inner.handle(record)
        written = self._stream.getvalue()
        self._stream.seek(0)
        self._stream.truncate()
        if written:
            self.lines.extend(written.splitlines())


CAPTURED = CapturingHandler()
# Lines from subprocesses (the CLI tests) join the same check.
EXTERNAL_LINES: list[str] = []


def leaked_lines() -> list[tuple[int, str]]:
    """(line number, what leaked: a pattern name or 'issued secret') for each leak."""
    found = []
    for number, line in enumerate(CAPTURED.lines + EXTERNAL_LINES):
        for pattern in LEAK_PATTERNS:
            if pattern.search(line):
                found.append((number, f"shape {pattern.pattern}"))
        if any(secret in line for secret in _ISSUED):
            found.append((number, "an issued secret"))
    return found
