"""What the edge reads of a request before routing it (web/edge.py).

The surface a path belongs to (the shape its refusals take), the body bound of a path
(docs/platform.md, "Body size"), the body headers in one pass over the scope, and the
query strings that need no parsing to be checked for control characters.
"""

from __future__ import annotations

import re

from gatehouse.settings import Settings

# Multipart framing allowed around an uploaded file, beyond UPLOAD_MAX_BYTES (the portal's
# upload routes refuse a file over the limit with their own page or body before this).
UPLOAD_FRAMING = 128 * 1024

# The portal's page routes that take an upload without scripts (portal/forms.py). A declared
# length over their bound is not refused here: they refuse it with their own translated page,
# before reading anything (docs/platform.md, "Body size").
PAGE_UPLOAD_ROUTE = re.compile(r"/portal/upload-documents|/portal/requests/[^/]+/items/[^/]+")


def is_page_upload(path: str, content_type: str) -> bool:
    """A multipart post to one of the portal's page upload routes."""
    return (
        content_type.lower().startswith("multipart/form-data")
        and PAGE_UPLOAD_ROUTE.fullmatch(path) is not None
    )


def _first_segment(path: str) -> str:
    return path[1:].partition("/")[0]


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


def surface_of(path: str) -> str:
    """`verify`, `page` (dashboard, tenant console, portal pages) or `json` (every other
    route)."""
    segment = _first_segment(path)
    if segment == "verify":
        return "verify"
    if segment in ("dashboard", "console"):
        return "page"
    if segment == "portal":
        return "json" if _under(path, "/portal/api") else "page"
    return "json"


def body_limit(path: str, content_type: str, settings: Settings) -> int:
    """The largest body a request to `path` may carry (docs/platform.md, "Body size").

    Sign-in bodies (`/dashboard/sign-in`, `/portal/login/…`, `/console/start/…`, `/verify`)
    have the smallest bound, portal uploads (multipart) the largest, page forms their own,
    and JSON the rest.
    """
    segment = _first_segment(path)
    if segment == "verify":
        return settings.sign_in_body_max_bytes
    if segment == "dashboard":
        if _under(path, "/dashboard/sign-in"):
            return settings.sign_in_body_max_bytes
        return settings.form_body_max_bytes
    if segment == "console":
        if path.startswith("/console/start/"):
            return settings.sign_in_body_max_bytes
        return settings.form_body_max_bytes
    if segment == "portal":
        if path.startswith("/portal/login/"):
            return settings.sign_in_body_max_bytes
        if content_type.lower().startswith("multipart/form-data"):
            return settings.upload_max_bytes + UPLOAD_FRAMING
        if _under(path, "/portal/api"):
            return settings.json_body_max_bytes
        return settings.form_body_max_bytes
    return settings.json_body_max_bytes


# A query string of printable ASCII without `%` decodes to itself (`+` to a space): it
# cannot carry a refused character, so its pairs need not be parsed to be checked.
PLAIN_QUERY = re.compile(rb"[\x20-\x24\x26-\x7e]*")


def body_headers(headers: list[tuple[bytes, bytes]]) -> tuple[str, str]:
    """The first Content-Type and Content-Length values (empty when absent), in one pass."""
    content_type = length = None
    for key, value in headers:
        if key == b"content-type":
            if content_type is None:
                content_type = value.decode("latin-1")
        elif key == b"content-length" and length is None:
            length = value.decode("latin-1")
    return content_type or "", length or ""
