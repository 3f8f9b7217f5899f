"""Every "status `code`" pair the docs promise (docs/reference/tenant-api.md §4.4 lists the
codes) is one the server can answer: an error kind of gatehouse.errors, or the code the edge
gives a bare status. A page naming a code the server never sends (a too-large tenant logo was
documented as `payload-too-large`; it is 413 `invalid-argument`) fails here."""

from __future__ import annotations

import re
from pathlib import Path

from gatehouse import errors
from gatehouse.documents.scan import UNAVAILABLE

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAIR = re.compile(r"\*{0,2}([1-5][0-9]{2})\*{0,2} `([a-z][a-z-]+)`")


def _answerable() -> set[tuple[int, str]]:
    kinds = {v for v in vars(errors).values() if isinstance(v, errors.ErrorKind)}
    kinds.add(UNAVAILABLE)
    kinds.add(errors.ErrorKind(415, "invalid-argument"))  # the edge's unsupported media type
    return {(kind.status, kind.code) for kind in kinds}


def test_every_documented_error_code_is_one_the_server_sends() -> None:
    answerable = _answerable()
    pages = sorted(DOCS.rglob("*.md"))
    assert pages
    wrong = sorted(
        f"{page.relative_to(DOCS)}: {status} `{code}`"
        for page in pages
        for status, code in PAIR.findall(page.read_text(encoding="utf-8"))
        if (int(status), code) not in answerable
    )
    assert wrong == []


def test_the_check_sees_a_wrong_pair() -> None:
    assert PAIR.findall("is 413 `payload-too-large` (a") == [("413", "payload-too-large")]
    assert (413, "payload-too-large") not in _answerable()
    assert (413, "invalid-argument") in _answerable()
