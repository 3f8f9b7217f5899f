"""The request's one line on `gatehouse.access` (docs/operations.md, "Logs").

The edge (web/edge.py) writes it once per request, after the answer, when the logger is
enabled for `info`.
"""

from __future__ import annotations

import logging
from typing import Any

access_log = logging.getLogger("gatehouse.access")


def log_access(method: str, template: str | None, path: str, status: int, seconds: float) -> None:
    """Write the line: the route template, or the path when no route matched.

    The record is handed to the logger directly: `Logger.info` would also look up the
    caller's frame, which no line shows. Filters and handlers apply as to any record.
    """
    fields: dict[str, Any] = {"method": method}
    if template is not None:
        fields["route"] = template
    else:
        fields["path"] = path
    fields["status"] = status
    fields["ms"] = round(seconds * 1000, 2)
    record = access_log.makeRecord(
        access_log.name,
        logging.INFO,
        "",
        0,
        "%s %s %s",
        (method, template or path, status),
        None,
        extra=fields,
    )
    access_log.handle(record)
