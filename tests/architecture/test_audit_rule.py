"""Who records an audit entry is one rule (docs/architecture.md, "Who is acting").

Surfaces, background composition and entry points build a `WriteContext` and hand it to a
feature; the feature's service records the entry through it (`ctx.audit`, or
`ctx.audit_values` for Core inserts). Only the audit room itself builds rows.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.architecture.test_layout import BAND, PACKAGE, modules, room_of

RECORDING_METHODS = {"audit", "audit_values"}
ROW_BUILDERS = {"AuditEntry", "entry_values"}


def recordings(source: str, *, feature: bool) -> list[str]:
    """Where `source` records an audit entry itself (a feature may, through its context)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in ROW_BUILDERS or (name in RECORDING_METHODS and not feature):
            found.append(f"line {node.lineno}: {name}(…)")
    return found


def outside_audit() -> list[Path]:
    return [path for path in modules() if room_of(path) != "audit"]


@pytest.mark.parametrize("path", outside_audit(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_services_record_audit_entries(path: Path) -> None:
    feature = BAND[room_of(path)] == 2
    assert recordings(path.read_text(), feature=feature) == []


def test_the_checker_sees_a_route_that_audits() -> None:
    """Not vacuous: a surface calling `ctx.audit` or building a row is caught, a feature
    calling `ctx.audit` is not."""
    route = "ctx.audit(session, 'x', 'y')\nsession.add(AuditEntry(**entry_values()))\n"
    assert len(recordings(route, feature=False)) == 3
    assert len(recordings(route, feature=True)) == 2
    assert recordings("ctx.audit(session, 'x', 'y')\n", feature=True) == []
