"""`/dashboard/insights` (docs/insights.md "The page"): the insights drawn as SVG charts on the
server, each with its table, the filters and period in the URL, and `?format=csv`.

The period is given in whole days (UTC), both ends included: `from=2026-11-01&to=2026-11-30`
covers 1 November 00:00 to 1 December 00:00. Without them: the last 30 days, today included.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse import insights
from gatehouse.accounts import tenants_by_name
from gatehouse.dashboard.sessions import require_viewer
from gatehouse.domain.principals import Role
from gatehouse.insights import charts_of, duration_words
from gatehouse.intakes import intakes_of
from gatehouse.web.auth import runtime_of
from gatehouse.web.rendering import render

router = APIRouter(include_in_schema=False)

PARAMS = ("tenant", "intake", "from", "to", "format")
DAY_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
PRESETS = ((7, "Last 7 days"), (30, "Last 30 days"), (90, "Last 90 days"), (365, "Last year"))
# A formula-looking cell is written as text (a spreadsheet must not run it).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _day(value: str | None, name: str, errors: dict[str, str]) -> date | None:
    if not value:
        return None
    if DAY_TEXT.fullmatch(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    errors[name] = "Give a date as YYYY-MM-DD, such as 2026-11-01."
    return None


def _values(request: Request) -> tuple[dict[str, str], dict[str, str]]:
    """The page's parameters (the last of a repeated one; unknown ones ignored) and errors."""
    values = {k: v.strip() for k, v in request.query_params.items() if k in PARAMS and v.strip()}
    errors: dict[str, str] = {}
    if values.get("format", "html") not in ("html", "csv"):
        errors["format"] = "format is html or csv."
    return values, errors


def _filters(values: dict[str, str], today: date, errors: dict[str, str]) -> insights.Filters:
    last = _day(values.get("to"), "to", errors) or today
    first = _day(values.get("from"), "from", errors) or last - timedelta(days=29)
    if first > last and "from" not in errors:
        errors["from"] = "The first day must not come after the last."
        first = last
    start = datetime.combine(first, datetime.min.time(), UTC)
    end = datetime.combine(last + timedelta(days=1), datetime.min.time(), UTC)
    return insights.Filters(start, end, values.get("tenant"), values.get("intake"))


def _csv(found: insights.Insights) -> Response:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(insights.CSV_HEADER)
    for row in insights.csv_rows(found):
        writer.writerow(["'" + cell if cell.startswith(FORMULA_START) else cell for cell in row])
    first = found.filters.start.date().isoformat()
    last = (found.filters.end - timedelta(days=1)).date().isoformat()
    return Response(
        buffer.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="insights-{first}-{last}.csv"',
            "Cache-Control": "no-store",
        },
    )


@router.get("/dashboard/insights")
async def insights_page(request: Request) -> Response:
    viewer = await require_viewer(request, Role.MLRO)
    if isinstance(viewer, Response):
        return viewer
    runtime = runtime_of(request)
    now = runtime.now()
    values, errors = _values(request)
    filters = _filters(values, now.date(), errors)
    async with runtime.db.read() as session:
        found = await insights.compute_insights(session, filters, now)
        tenants = await tenants_by_name(session)
        intakes = await intakes_of(session, filters.tenant_id) if filters.tenant_id else []
    if values.get("format") == "csv" and not errors:
        return _csv(found)
    kept = {k: v for k, v in values.items() if k in ("tenant", "intake", "from", "to")}
    shown_from = found.filters.start.date().isoformat()
    shown_to = (found.filters.end - timedelta(days=1)).date().isoformat()
    return render(
        request,
        "dashboard/insights.html",
        {
            "viewer": viewer,
            "section": "insights",
            "title": "Insights",
            "found": found,
            "charts": charts_of(found),
            "p50": duration_words(found.durations.percentiles.get(50)),
            "p90": duration_words(found.durations.percentiles.get(90)),
            "tenants": [(t.id, t.name) for t in tenants],
            "intakes": [(i.id, i.name) for i in intakes],
            "values": {**kept, "from": shown_from, "to": shown_to},
            "errors": errors,
            "csv_url": "/dashboard/insights?" + urlencode({**kept, "format": "csv"}),
            "presets": [
                (
                    words,
                    "/dashboard/insights?"
                    + urlencode(
                        {
                            **{k: v for k, v in kept.items() if k in ("tenant", "intake")},
                            "from": (now.date() - timedelta(days=days - 1)).isoformat(),
                            "to": now.date().isoformat(),
                        }
                    ),
                )
                for days, words in PRESETS
            ],
        },
        status_code=400 if errors else 200,
    )
