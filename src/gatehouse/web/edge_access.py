"""The request's one line on `gatehouse.access` (docs/operations.md, "Logs").

The edge (web/edge.py) writes it once per request, after the answer, when the logger is
enabled for `info`.
"""

from __future__ import annotations

import logging
from typing import Any

access_log = logging.getLogger("gatehouse.access")


def log_access(
    method: str,
    template: str | None,
    path: str,
    status: int,
    seconds: float,
    state: Any = None,
) -> None:
    """Write the line: the route template, or the path when no route matched, and who asked
    (`principal_fields` of the request's state). With traces on, the log formatter adds the
    request span's trace_id (tracing.py).

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
    if state:
        fields.update(principal_fields(state))
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


def principal_fields(state: Any) -> dict[str, str]:
    """tenant_id and key_id of a tenant key, staff_id of a staff member, tenant_id of a
    portal session: what the access line and the span say of who asked."""
    if not isinstance(state, dict):
        return {}
    fields: dict[str, str] = {}
    for key, names in _PRINCIPALS:
        holder = state.get(key)
        for name in names if holder is not None else ():
            value = getattr(holder, name, None)
            if isinstance(value, str) and name not in fields:
                fields[name] = value
    return fields


# Where the request's state keeps who asked (web/auth.py, dashboard/sessions.py,
# portal/session_http.py), and what of each the line shows.
_PRINCIPALS = (
    ("principal", ("tenant_id", "key_id")),
    ("staff", ("staff_id",)),
    ("portal", ("tenant_id",)),
)
