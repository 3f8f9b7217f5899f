"""Every string of the portal is in every catalogue, translated (docs/reference/portal.md,
"Languages").

The strings are extracted with Babel's own extractors over the templates and the Python
code, as `babel.cfg` maps them (the same extraction `scripts/translations` runs), and
compared with each shipped `.po`: every msgid present, every form translated, nothing fuzzy,
the same placeholders.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from gatehouse.web.i18n import LANGUAGES, catalogue_path, translations

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None}
Msgid = str | tuple[str, ...]


def _searched(path: str) -> bool:
    name = Path(path).name
    return not name.startswith((".", "_")) and name not in ("node_modules", "tests", "docs")


def extracted() -> dict[Msgid, str]:
    """Every message the portal shows, with where it was found."""
    with (ROOT / "babel.cfg").open() as config:
        method_map, options_map = parse_mapping_cfg(config)
    found: dict[Msgid, str] = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=KEYWORDS, directory_filter=_searched
    ):
        msgid: Msgid = tuple(message) if isinstance(message, tuple | list) else message
        found.setdefault(msgid, f"{filename}:{lineno}")
    return found


def problems(catalog: Catalog, wanted: Iterable[Msgid]) -> list[str]:
    """What a catalogue lacks: missing, untranslated or fuzzy messages, broken placeholders."""
    found: list[str] = []
    for msgid in wanted:
        key = msgid[0] if isinstance(msgid, tuple) else msgid
        message = catalog.get(key)
        if message is None:
            found.append(f"missing: {msgid!r}")
            continue
        if isinstance(msgid, tuple) and tuple(message.id) != msgid:
            found.append(f"plural differs: {msgid!r}")
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings):
            found.append(f"untranslated: {msgid!r}")
        if message.fuzzy:
            found.append(f"fuzzy: {msgid!r}")
    for message, errors in catalog.check():
        found.extend(f"{message.id!r}: {error}" for error in errors)
    return found


def load(code: str) -> Catalog:
    with catalogue_path(code).open("rb") as source:
        return read_po(source, locale=code)


def test_the_extraction_finds_the_portal() -> None:
    found = extracted()
    # A template string, a Python string, a plural and the shared base template's.
    assert "Save draft" in found
    assert "Thank you. Your application is submitted." in found
    assert "We have your application and are reviewing it." in found
    assert "Skip to content" in found
    assert any(isinstance(msgid, tuple) for msgid in found)
    assert len(found) > 100


@pytest.mark.parametrize("code", sorted(code for code in LANGUAGES if code != "en"))
def test_every_string_is_translated(code: str) -> None:
    found = extracted()
    catalog = load(code)
    assert problems(catalog, found) == []
    # And the compiled catalogue the pages use answers in the language.
    assert translations(code).gettext("Save draft") != "Save draft"


def test_a_catalogue_missing_a_string_is_caught() -> None:
    """The comparison itself fails on a gap: one message removed, one emptied, one fuzzy."""
    found = extracted()
    catalog = load("de")
    catalog.delete("Save draft")
    catalog["Continue"].string = ""
    catalog["Sign out"].flags.add("fuzzy")
    reported = problems(catalog, found)
    assert "missing: 'Save draft'" in reported
    assert "untranslated: 'Continue'" in reported
    assert "fuzzy: 'Sign out'" in reported


def test_placeholders_are_checked() -> None:
    catalog = load("de")
    catalog["Signed in as %(email)s"].string = "Angemeldet als %(mail)s"
    assert any("Signed in as" in line for line in problems(catalog, []))
