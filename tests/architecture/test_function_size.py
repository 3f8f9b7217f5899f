"""No function in src over `MAX_LINES` lines (docs/architecture.md, "Size").

A function that long does several things: split it by meaning (the edge, for one, is an
exchange object and a list of small checks, web/edge_checks.py). Counted from the `def`
line (decorators excluded) to the function's last line, docstring and comments included.
Migrations are left out: a revision is frozen history, one `upgrade()` listing the DDL of
its tables (0001 creates twenty of them).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "gatehouse"
MIGRATIONS = PACKAGE / "storage" / "migrations" / "versions"
MAX_LINES = 90

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def long_functions(source: str, name: str) -> Iterator[str]:
    """`name:line function (N lines)` for each function of `source` over the bound."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, FunctionNode):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MAX_LINES:
                yield f"{name}:{node.lineno} {node.name} ({lines} lines)"


def test_no_function_in_src_is_over_the_bound() -> None:
    found = [
        entry
        for path in sorted(PACKAGE.rglob("*.py"))
        if MIGRATIONS not in path.parents
        for entry in long_functions(path.read_text(), str(path.relative_to(PACKAGE)))
    ]
    assert found == []


def test_the_check_sees_a_long_function() -> None:
    body = "\n".join(f"    x{n} = {n}" for n in range(MAX_LINES))
    source = f"async def long():\n{body}\n\n\ndef short():\n    return 1\n"
    assert list(long_functions(source, "m.py")) == [f"m.py:1 long ({MAX_LINES + 1} lines)"]
