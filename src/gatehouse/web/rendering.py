"""Rendering server-side pages: one Jinja2 environment for the portal
and the dashboard, the filters the templates share, and small page answers."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import RedirectResponse, Response

from gatehouse.timeutil import format_ts, parse_ts

PACKAGE_DIR = Path(__file__).resolve().parent.parent
TEMPLATES_DIR = PACKAGE_DIR / "templates"
STATIC_DIR = PACKAGE_DIR / "static"

# Pages must never be cached by shared caches, nor framed by other sites.
PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
}


def _moment(value: datetime | str) -> datetime | str:
    """A datetime in UTC: an RFC 3339 string (an API row's time) is parsed; other text stays."""
    if isinstance(value, datetime):
        return value.astimezone(UTC) if value.tzinfo is not None else value
    try:
        return parse_ts(value)
    except ValueError:
        return value


def human_time(value: datetime | str | None) -> str:
    """`22 Nov 2026, 10:00 UTC` for people, from a datetime or an RFC 3339 string; other text
    as given; an em dash when there is none."""
    if value is None or value == "":
        return "—"
    moment = _moment(value)
    if isinstance(moment, str):
        return moment
    return f"{moment.day} {moment:%b %Y, %H:%M} UTC"


def machine_time(value: datetime | str | None) -> str:
    """The RFC 3339 form (`<time datetime>`), from a datetime or a string; other text as given."""
    if value is None or value == "":
        return ""
    moment = _moment(value)
    return moment if isinstance(moment, str) else format_ts(moment)


def words(value: str | None) -> str:
    """`pending_approval` → `pending approval` (status names in prose)."""
    return (value or "").replace("_", " ")


templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
templates.env.filters["when"] = human_time
templates.env.filters["iso"] = machine_time
templates.env.filters["words"] = words
templates.env.filters["number"] = str
# Templates mark their text for translation (`_()`, `{% trans %}`); the dashboard renders it
# as written, the portal in the reader's language (web/i18n.py).
templates.env.add_extension("jinja2.ext.i18n")
templates.env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]


def render(
    request: Request,
    name: str,
    context: Mapping[str, Any] | None = None,
    *,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """A page with the headers every page carries."""
    merged = dict(PAGE_HEADERS)
    merged.update(headers or {})
    return templates.TemplateResponse(
        request, name, dict(context or {}), status_code=status_code, headers=merged
    )


def see_other(url: str, headers: Mapping[str, str] | None = None) -> Response:
    """303 after a form post (the browser then GETs the page)."""
    return RedirectResponse(url, status_code=303, headers=dict(headers or {}))


def refusal_page(status: int, reason: str) -> str:
    """The page a dashboard or portal page route answers a refused request with
    (docs/platform.md, "Text input" and "Body size")."""
    heading = "The request was too large" if status == 413 else "The request was refused"
    return templates.get_template("refused.html").render(heading=heading, reason=reason)


def static_file_path(name: str) -> Path | None:
    """The file under static/ named by `name`, or None (no escaping the folder). A name the
    file system cannot even look up (too long, a NUL) is no file either, never an error."""
    try:
        candidate = (STATIC_DIR / name).resolve()
        if STATIC_DIR not in candidate.parents or not candidate.is_file():
            return None
    except (OSError, ValueError):
        return None
    return candidate
