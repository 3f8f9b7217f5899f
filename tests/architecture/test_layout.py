"""The layout rule of docs/architecture.md, checked from the imports.

Bands, top to bottom; a module may import its own room, any room of a lower band, and
rooms of its own band below the surfaces (features may use each other; one surface
never imports another):

5. entry points: the app factory, the ASGI server module, the CLI
4. surfaces: the tenant API, the staff API, the verification interface, portal, dashboard
3. composition: background processes that wire features together
2. features: use cases, their SQL and shapes; they know no HTTP
1. platform: storage, outbound calls, limits, the web toolkit, keys, logs, metrics
0. core: the pure domain rules and vocabulary, error kinds, ids, time

Features never import fastapi, starlette or the `web` toolkit; the core imports no I/O.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "gatehouse"

BANDS: dict[int, set[str]] = {
    5: {"app", "server", "cli", "demo"},
    4: {"api", "staff", "verify", "portal", "dashboard"},
    3: {"workers", "sweeps"},
    2: {
        "accounts",
        "applicants",
        "applications",
        "cases",
        "decisions",
        "documents",
        "erasure",
        "info_requests",
        "intakes",
        "members",
        "sandbox",
        "verification",
        "webhooks",
    },
    1: {
        "audit",
        "crypto",
        "keyed_lock",
        "limits",
        "logs",
        "metrics",
        "outbound",
        "paging",
        "runtime",
        "settings",
        "storage",
        "web",
    },
    0: {"domain", "errors", "ids", "timeutil"},
}
BAND = {room: band for band, rooms in BANDS.items() for room in rooms}
HTTP_LIBRARIES = {"fastapi", "starlette", "jinja2"}
IO_LIBRARIES = HTTP_LIBRARIES | {"sqlalchemy", "httpx", "coredis", "asyncpg", "aiosqlite"}


def room_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def modules() -> list[Path]:
    return sorted(
        path
        for path in PACKAGE.rglob("*.py")
        if "migrations" not in path.parts and path != PACKAGE / "__init__.py"
    )


def imports_of(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "gatehouse":
                yield from (f"gatehouse.{alias.name}" for alias in node.names)
            else:
                yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def violations(path: Path) -> list[str]:
    room = room_of(path)
    band = BAND[room]
    found = []
    for name in imports_of(path):
        parts = name.split(".")
        if parts[0] == "gatehouse" and len(parts) > 1 and parts[1] != room:
            target = parts[1]
            if target not in BAND:
                continue
            if BAND[target] > band or (BAND[target] == band == 4):
                found.append(f"{name} (up from band {band} to band {BAND[target]})")
            elif band == 2 and target == "web":
                found.append(f"{name} (features know no HTTP)")
        elif band == 2 and parts[0] in HTTP_LIBRARIES:
            found.append(f"{name} (features know no HTTP)")
        elif band == 0 and parts[0] in IO_LIBRARIES:
            found.append(f"{name} (the core does no I/O)")
    return found


def test_every_room_has_a_band() -> None:
    rooms = {room_of(path) for path in modules()}
    assert sorted(rooms - set(BAND)) == [], "give each new room a band here and in the docs"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_only_go_down(path: Path) -> None:
    assert violations(path) == []


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    """The rule above is not vacuous: a feature importing a surface is caught."""
    probe = PACKAGE / "members" / "_layout_probe.py"
    probe.write_text("from gatehouse.api.routes import router\nimport fastapi\n")
    try:
        assert len(violations(probe)) == 2
    finally:
        probe.unlink()
