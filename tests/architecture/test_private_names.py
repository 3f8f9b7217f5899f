"""Libraries through their public APIs (docs/architecture.md, "Libraries").

Every attribute of another object read or written under a private name (one leading
underscore) in src is listed in `KNOWN`, with the library it belongs to, so that a new
one fails here and each listed one is checked against the installed library (a canary:
an upgrade that renames it fails here, not in production). Storage and limits use none.
Named tuples' documented methods (`_make`, `_asdict`, `_fields`, `_replace`) are public
API and not counted.
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Iterator
from pathlib import Path

from prometheus_client import Histogram

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "gatehouse"
NAMEDTUPLE_API = frozenset({"_make", "_asdict", "_fields", "_replace"})

# (module, private attribute) -> the library the name belongs to.
KNOWN: dict[tuple[str, str], str] = {
    ("logs.py", "_srcfile"): "logging",
    ("metrics.py", "_sum"): "prometheus_client",
    ("metrics.py", "_buckets"): "prometheus_client",
}
# Rooms that must read no private name at all.
CLEAN = ("storage/", "limits/")


def private_names(source: str) -> Iterator[tuple[int, str]]:
    """(line, name) of each private attribute of an object other than `self` or `cls`."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or name.startswith("__") or name in NAMEDTUPLE_API:
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        yield node.lineno, name


def _found() -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        for line, name in private_names(path.read_text()):
            found.setdefault((module, name), []).append(line)
    return found


def test_private_names_in_src_are_the_known_ones() -> None:
    assert sorted(_found()) == sorted(KNOWN)


def test_storage_and_limits_use_public_apis_only() -> None:
    assert [key for key in _found() if key[0].startswith(CLEAN)] == []


def test_the_known_private_names_still_exist() -> None:
    assert hasattr(logging, "_srcfile")
    child = Histogram("canary_seconds", "canary", registry=None)
    assert hasattr(child, "_sum")
    assert hasattr(child, "_buckets")


def test_the_check_sees_a_private_name() -> None:
    source = "def f(engine, self):\n    engine._pool = 1\n    self._own = 2\n    r._asdict()\n"
    assert list(private_names(source)) == [(2, "_pool")]
