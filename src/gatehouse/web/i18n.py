"""Languages of the applicant portal (docs/reference/portal.md, "Languages").

Catalogues are gettext `.po` files under `gatehouse/translations/<lang>/LC_MESSAGES/`,
shipped in the package and compiled into memory (Babel's `.mo` writer) the first time a
language is used; fuzzy entries are left out. English is the source language and needs no
catalogue. Each language has its own Jinja2 environment, an overlay of the shared one with
that language's translations installed (`jinja2.ext.i18n`, new-style gettext) and filters
that write dates and numbers the way the language does (`babel.dates`, `babel.numbers`).
"""

from __future__ import annotations

import functools
import gettext
from dataclasses import dataclass
from datetime import UTC, datetime
from io import BytesIO
from typing import Any

import jinja2
from babel import Locale
from babel.dates import format_date, format_time
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from fastapi.templating import Jinja2Templates

from gatehouse.web.rendering import PACKAGE_DIR, templates

TRANSLATIONS_DIR = PACKAGE_DIR / "translations"
DOMAIN = "messages"
DEFAULT_LANGUAGE = "en"


@dataclass(frozen=True, slots=True)
class Language:
    code: str
    name: str  # in the language itself, as the picker shows it
    direction: str  # ltr | rtl


LANGUAGES: dict[str, Language] = {
    "en": Language("en", "English", "ltr"),
    "de": Language("de", "Deutsch", "ltr"),
    "ar": Language("ar", "العربية", "rtl"),
}


def N_(message: str) -> str:
    """Marks a message for extraction; it is translated where it is shown."""
    return message


def catalogue_path(code: str) -> Any:
    return TRANSLATIONS_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translations(code: str) -> gettext.NullTranslations:
    """The compiled catalogue of `code` (English, or an unknown code: none)."""
    path = catalogue_path(code)
    if code == DEFAULT_LANGUAGE or code not in LANGUAGES or not path.is_file():
        return gettext.NullTranslations()
    with path.open("rb") as source:
        catalog = read_po(source, locale=code, domain=DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def language_of(cookie: str | None, accept_language: str | None) -> Language:
    """The cookie's language when it names one, else the best of Accept-Language, else
    English. Tags are compared by their primary subtag (`de-AT` is German)."""
    if cookie in LANGUAGES:
        return LANGUAGES[cookie]
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate((accept_language or "").split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        code = tag.strip().lower().partition("-")[0]
        if code in LANGUAGES and quality > 0:
            ranked.append((-quality, position, code))
    return LANGUAGES[min(ranked)[2]] if ranked else LANGUAGES[DEFAULT_LANGUAGE]


def localized_time(value: datetime | str | None, code: str) -> str:
    """A moment as people of the language write it, in UTC (`22. Nov. 2026, 10:00 UTC`)."""
    if value is None or value == "":
        return "—"
    if isinstance(value, str):
        return value
    moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    locale = Locale.parse(code)
    pattern = str(locale.datetime_formats["medium"])  # e.g. "{1}, {0}": date, then time
    day = format_date(moment, "medium", locale=locale)
    hour = format_time(moment, "HH:mm", tzinfo=UTC, locale=locale)
    return pattern.replace("{1}", day).replace("{0}", hour) + " UTC"


def localized_number(value: int | float, code: str) -> str:
    return format_decimal(value, locale=code)


@functools.cache
def templates_for(code: str) -> Jinja2Templates:
    """Templates rendered in `code`: an environment of its own (same loader, filters and
    globals as the shared one) with the language's translations installed."""
    shared = templates.env
    env = jinja2.Environment(
        loader=shared.loader,
        autoescape=shared.autoescape,  # noqa: S701 - the shared one's: on for HTML files
        extensions=["jinja2.ext.i18n"],
        auto_reload=shared.auto_reload,
    )
    env.filters.update(shared.filters)
    env.globals.update(
        (name, value)
        for name, value in shared.globals.items()
        if name not in ("gettext", "ngettext", "pgettext", "npgettext", "_")
    )
    env.install_gettext_translations(translations(code), newstyle=True)  # type: ignore[attr-defined]
    env.filters["when"] = lambda value: localized_time(value, code)
    env.filters["number"] = lambda value: localized_number(value, code)
    return Jinja2Templates(env=env)
