"""The portal's pages in the reader's language (docs/reference/portal.md, "Languages").

The language is the one the reader picked (the `gatehouse_lang` cookie, set by the picker
every page shows), else the best match of the browser's Accept-Language, else English.
`render_portal` renders a portal template in that language, with the tenant's branding
(docs/reference/portal.md, "Branding") when the page knows whose application it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.accounts import Branding
from gatehouse.portal.texts import BADGE_WORDS
from gatehouse.web.auth import runtime_of
from gatehouse.web.browser import check_origin, read_cookie, set_session_cookie
from gatehouse.web.i18n import LANGUAGES, Language, language_of, templates_for, translations
from gatehouse.web.rendering import PAGE_HEADERS, see_other
from gatehouse.web.text import read_form

router = APIRouter(include_in_schema=False)

LANGUAGE_COOKIE = "gatehouse_lang"
COOKIE_PATH = "/portal"
COOKIE_LIFETIME = timedelta(days=365)


def language_for(request: Request) -> Language:
    cached = getattr(request.state, "language", None)
    if isinstance(cached, Language):
        return cached
    chosen = language_of(
        read_cookie(request, runtime_of(request).settings, LANGUAGE_COOKIE),
        request.headers.get("accept-language"),
    )
    request.state.language = chosen
    return chosen


def gettext_for(request: Request) -> Callable[[str], str]:
    """The reader's translation of one message (for text made in Python)."""
    return translations(language_for(request).code).gettext


def render_portal(
    request: Request,
    name: str,
    context: Mapping[str, Any] | None = None,
    *,
    branding: Branding | None = None,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """A portal page in the reader's language, with the headers every page carries."""
    language = language_for(request)
    merged = dict(PAGE_HEADERS)
    merged["Content-Language"] = language.code
    merged["Vary"] = "Cookie, Accept-Language"
    merged.update(headers or {})
    values: dict[str, Any] = {
        "lang": language.code,
        "text_dir": language.direction,
        "languages": list(LANGUAGES.values()),
        "here": request.url.path,
        "brand": branding,
        "badge_words": BADGE_WORDS,
    }
    values.update(context or {})
    return templates_for(language.code).TemplateResponse(
        request, name, values, status_code=status_code, headers=merged
    )


def _safe_next(value: object) -> str:
    """A page of the portal to go back to (never another site)."""
    if (
        isinstance(value, str)
        and value.startswith(COOKIE_PATH)
        and not value.startswith("//")
        and "\\" not in value
        and len(value) <= 300
    ):
        return value
    return COOKIE_PATH


def _same_site_referer_path(request: Request) -> str | None:
    """The path of the `Referer` when it is this site's; None for another site's, or for
    text that is no URL at all (`http://[::1` makes `urlsplit` raise)."""
    try:
        referer = urlsplit(request.headers.get("referer", ""))
    except ValueError:
        return None
    return referer.path if referer.netloc == request.url.netloc else None


@router.post("/portal/language")
async def choose_language(request: Request) -> Response:
    """The picker: remember the language in a cookie and show the page again."""
    runtime = runtime_of(request)
    check_origin(request, runtime.settings)
    form = await read_form(request, max_files=0, max_fields=5)
    code = form.get("lang")
    back = form.get("next")
    if not back:
        # A page that must not name its own address (the 410 of a sign-in link) sends none.
        back = _same_site_referer_path(request)
    response = see_other(_safe_next(back))
    if isinstance(code, str) and code in LANGUAGES:
        set_session_cookie(
            response,
            runtime.settings,
            name=LANGUAGE_COOKIE,
            value=code,
            path=COOKIE_PATH,
            lifetime=COOKIE_LIFETIME,
            same_site="lax",
        )
    return response
