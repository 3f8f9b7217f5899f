"""The repository explains itself: every citation points inside it, at a page and section
that exist (docs/reference/README.md).

- Nothing cites a document outside the repository or an issue number.
- Code, tests, the client and the benchmarks cite a page by its whole path from the
  repository's root (`docs/reference/tenant-api.md §5.11`): `docs/tenant-api.md` and
  `docs/reference/tenant-api.md` are different pages, so a bare `tenant-api.md` is ambiguous.
- In the pages themselves a citation is a path from the page's folder or from the root, or a
  Markdown link; either way the page exists and so does each section number cited.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CODE_SUFFIXES = {".py"}
TEXT_SUFFIXES = {
    ".py",
    ".md",
    ".html",
    ".js",
    ".ts",
    ".mjs",
    ".cjs",
    ".toml",
    ".cfg",
    ".yaml",
    ".yml",
    ".txt",
}
OUTSIDE = re.compile(
    r"\.\./shared|\bCONTRACT(\.md| ?§)|\bDESIGN\.md|\bspec(ification)? ?\d+ ?§|\bissues? #?\d+",
    re.IGNORECASE,
)
SECTIONS = r"((?:(?:,| and| or| to|-|;)? ?§ ?\d+(?:\.\d+)*)*)"
PAGE = re.compile(r"(?<![\w/.\-\"'])((?:\.\./)*(?:[\w-]+/)*[\w-]+\.md)\b`?" + SECTIONS)
LINK = re.compile(r"\[([^\]]*)\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")
HEADING = re.compile(r"^#+\s+(\d+(?:\.\d+)*)\.?\s", re.MULTILINE)
NUMBER = re.compile(r"\d+(?:\.\d+)*")


# Made by tools, never written by hand: skipped when the tree is walked without git.
GENERATED = {".git", ".venv", "node_modules", "__pycache__", "build", "dist", ".pytest_cache"}


def repository_files() -> list[str]:
    """The repository's files, relative to its root: git's list in a clone; in a copy without
    `.git` (an export or an unpacked archive), every file outside the generated folders."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True)
    if listed.returncode == 0 and (ROOT / ".git").exists():
        return listed.stdout.split()
    return [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*")
        if not GENERATED.intersection(path.relative_to(ROOT).parts)
        and not any(part.endswith((".egg-info", "_cache")) for part in path.parts)
    ]


def tracked(suffixes: set[str]) -> list[Path]:
    return [
        ROOT / name
        for name in repository_files()
        if Path(name).suffix in suffixes and (ROOT / name).is_file() and "static/" not in name
    ]


@cache
def sections(page: Path) -> frozenset[str]:
    return frozenset(HEADING.findall(page.read_text()))


def faults(path: Path, text: str) -> list[str]:
    """The citations of `text` (the file at `path`) that point nowhere, with their line."""
    found = []
    code = path.suffix in CODE_SUFFIXES

    def check(start: int, cited: str, numbers: list[str], bases: list[Path]) -> None:
        line = text.count("\n", 0, start) + 1
        page = next((base / cited for base in bases if (base / cited).is_file()), None)
        if page is None:
            found.append(f"line {line}: {cited} (no such page)")
            return
        missing = [n for n in numbers if n not in sections(page)]
        if missing:
            found.append(f"line {line}: {cited} §{', §'.join(missing)} (no such section)")

    for match in OUTSIDE.finditer(text):
        found.append(f"line {text.count(chr(10), 0, match.start()) + 1}: {match.group(0)!r}")
    linked = set()
    if not code:
        for match in LINK.finditer(text):
            linked.update(range(match.start(), match.end()))
            if "://" not in match.group(2):
                numbers = NUMBER.findall(" ".join(re.findall(r"§ ?[\d.]+", match.group(1))))
                check(match.start(), match.group(2), numbers, [path.parent])
    for match in PAGE.finditer(text):
        if match.start() in linked:
            continue
        cited, numbers = match.group(1), NUMBER.findall(match.group(2))
        if code:
            if cited.startswith("docs/"):
                check(match.start(), cited, numbers, [ROOT])
            elif numbers:
                found.append(
                    f"line {text.count(chr(10), 0, match.start()) + 1}: {cited} §{numbers[0]} "
                    "(name the page by its whole path, docs/…)"
                )
        elif "/" in cited or numbers:
            check(match.start(), cited, numbers, [path.parent, ROOT])
    return found


@pytest.mark.parametrize("path", tracked(TEXT_SUFFIXES), ids=lambda p: str(p.relative_to(ROOT)))
def test_citations_point_inside_the_repository(path: Path) -> None:
    assert faults(path, path.read_text()) == []


def test_the_checker_sees_a_bad_citation() -> None:
    """Not vacuous: each kind of fault is caught, the good forms pass."""
    code = ROOT / "src" / "gatehouse" / "probe.py"
    page = ROOT / "docs" / "probe.md"
    md = "md"  # the probes are built here, so this file itself cites nothing
    bad_code = [
        "# see ../" + "shared/CONT" + "RACT." + md,
        "# CONT" + "RACT §2.3",
        "# Sp" + "ec 1 §4.1 rule 6",
        "# fixed in iss" + "ue 12",
        f"# (tenant-api.{md} §5.11)",
        f"# (docs/reference/tenant-api.{md} §99)",
        f"# (docs/reference/nowhere.{md})",
    ]
    for line in bad_code:
        assert faults(code, line + "\n"), line
    good_code = f"# (docs/reference/tenant-api.{md} §5.11, §4.7; docs/platform.{md})\n"
    good_code += f"x = 'webhooks.{md}'\n"
    assert faults(code, good_code) == []
    assert len(faults(page, f"[tenant-api.{md} §99](reference/tenant-api.{md})\n")) == 1
    assert len(faults(page, f"see tenant-api.{md} §4.6\n")) == 1  # docs/tenant-api.md has none
    good_page = f"[tenant-api.{md} §4.6](reference/tenant-api.{md}), "
    good_page += f"`docs/reference/webhooks.{md}` §6.2, webhooks.{md}\n"
    assert faults(page, good_page) == []
