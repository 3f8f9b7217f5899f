"""The layout rule of docs/architecture.md, checked from the imports.

Bands, top to bottom; a module may import its own room, any room of a lower band, and
rooms of its own band below the surfaces (features may use each other; one surface
never imports another):

5. entry points: the app factory, the ASGI server module, the CLI
4. surfaces: the tenant API, the staff API, the verification interface, portal, dashboard,
   the tenant console
3. composition: background processes that wire features together
2. features: use cases, their SQL and shapes; they know no HTTP
1. platform: storage, outbound calls, limits, the web toolkit, keys, logs, metrics
0. core: the pure domain rules and vocabulary, error kinds, ids, time

Features never import fastapi, starlette or the `web` toolkit; the core imports no I/O.
Rooms that may use each other (features, platform rooms) still do so one way: the rooms
drawn from the imports have no circle. Every import counts, relative ones, imports inside
functions and imports under `TYPE_CHECKING` included. The vocabulary (statuses, states,
roles, event types) is defined once, as enums in `domain/`. Surfaces write no SQL: they call a
feature's service or queries.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "gatehouse"

BANDS: dict[int, set[str]] = {
    5: {"app", "server", "cli", "demo"},
    4: {"api", "staff", "verify", "portal", "dashboard", "console"},
    3: {"workers", "sweeps"},
    2: {
        "accounts",
        "applicants",
        "applications",
        "cases",
        "consoles",
        "decisions",
        "documents",
        "erasure",
        "info_requests",
        "insights",
        "intakes",
        "members",
        "realignment",
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
HTTP_LIBRARIES = {"fastapi", "starlette", "jinja2", "uvicorn", "multipart", "python_multipart"}
IO_LIBRARIES = HTTP_LIBRARIES | {"sqlalchemy", "httpx", "coredis", "redis", "asyncpg", "aiosqlite"}
ENUM_BASES = {"Enum", "StrEnum", "IntEnum", "Flag", "IntFlag"}
SURFACES = BANDS[4]


def room_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def module_of(path: Path) -> str:
    """`gatehouse.webhooks.delivery.loop` for its file (a package is its `__init__.py`)."""
    parts = ["gatehouse", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> list[Path]:
    return sorted(
        path
        for path in PACKAGE.rglob("*.py")
        if "migrations" not in path.parts and path != PACKAGE / "__init__.py"
    )


def imports_of(source: str, module: str, *, is_package: bool = False) -> Iterator[str]:
    """Every module `source` imports, relative imports resolved against `module`."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            if name == "gatehouse":
                yield from (f"gatehouse.{alias.name}" for alias in node.names)
            else:
                yield name
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def violations(room: str, source: str, module: str, *, is_package: bool = False) -> list[str]:
    band = BAND[room]
    found = []
    for name in imports_of(source, module, is_package=is_package):
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


def room_arrows(files: Mapping[Path, str]) -> dict[str, set[str]]:
    """Room -> the other rooms its modules import (by their own first name)."""
    arrows: dict[str, set[str]] = {}
    for path, source in files.items():
        room = room_of(path)
        for name in imports_of(source, module_of(path), is_package=path.name == "__init__.py"):
            parts = name.split(".")
            if parts[0] == "gatehouse" and len(parts) > 1 and parts[1] != room:
                arrows.setdefault(room, set()).add(parts[1])
    return arrows


def circle(arrows: Mapping[str, set[str]]) -> list[str]:
    """One circle of rooms (first room repeated at the end), or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(room: str) -> list[str]:
        state[room] = 1
        path.append(room)
        for target in sorted(arrows.get(room, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[room] = 2
        return []

    for room in sorted(arrows):
        if room not in state and (found := visit(room)):
            return found
    return []


def enums_defined(source: str) -> list[str]:
    """The enum classes `source` defines (subclasses of Enum, StrEnum, IntEnum, ...)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
                if name in ENUM_BASES:
                    found.append(node.name)
    return found


def builds_sql(source: str) -> bool:
    """Whether `source` imports SQLAlchemy's statement builders (its session types are fine)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            name = node.module
        elif isinstance(node, ast.Import):
            name = node.names[0].name
        else:
            continue
        if name.split(".")[0] == "sqlalchemy" and not name.startswith("sqlalchemy.ext.asyncio"):
            return True
    return False


def test_every_room_has_a_band() -> None:
    rooms = {room_of(path) for path in modules()}
    assert sorted(rooms - set(BAND)) == [], "give each new room a band here and in the docs"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_only_go_down(path: Path) -> None:
    source = path.read_text()
    assert (
        violations(room_of(path), source, module_of(path), is_package=path.name == "__init__.py")
        == []
    )


def test_rooms_import_each_other_one_way() -> None:
    """Features may use features, platform rooms each other: never both ways round."""
    arrows = room_arrows({path: path.read_text() for path in modules()})
    assert circle(arrows) == []


def test_the_vocabulary_is_defined_in_domain() -> None:
    """Statuses, states, roles and event types are enums of `domain/`, nowhere else."""
    elsewhere = {
        str(path.relative_to(PACKAGE)): enums
        for path in modules()
        if room_of(path) != "domain" and (enums := enums_defined(path.read_text()))
    }
    assert elsewhere == {}


def test_surfaces_write_no_sql() -> None:
    """A surface parses, authenticates, calls a service and renders; the SQL is the feature's."""
    building = {
        str(path.relative_to(PACKAGE))
        for path in modules()
        if room_of(path) in SURFACES and builds_sql(path.read_text())
    }
    assert sorted(building) == []


def test_the_checker_sees_an_upward_import() -> None:
    """The rules above are not vacuous: each kind of breach is caught, none invented."""
    feature = "gatehouse.members.service"
    breaches = [
        "from gatehouse.api.routes import router",  # feature -> surface
        "import gatehouse.dashboard.routes",
        "from gatehouse import sweeps",  # feature -> composition
        "from ..api import routes",  # the same, written relative
        "from .. import portal",
        "from gatehouse.web.handlers import install",  # feature -> web toolkit
        "import fastapi",
        "from starlette.requests import Request",
        "if TYPE_CHECKING:\n    from fastapi import Request",
        "def f():\n    from gatehouse.staff import cases",
    ]
    for line in breaches:
        assert len(violations("members", line + "\n", feature)) == 1, line
    fine = "from gatehouse.applications.service import reads\nfrom . import service\n"
    fine += "from gatehouse.domain.status import ApplicationStatus\nimport sqlalchemy\n"
    assert violations("members", fine, feature) == []
    assert violations("storage", "from gatehouse.webhooks import outbox\n", "gatehouse.storage.db")
    assert violations("domain", "import sqlalchemy\n", "gatehouse.domain.status")
    assert violations("staff", "from gatehouse.api import routes\n", "gatehouse.staff.cases")
    assert violations("api", "from gatehouse.webhooks import service\n", "gatehouse.api.x") == []
    assert (
        violations(
            "webhooks", "from .. import loop\n", "gatehouse.webhooks.delivery", is_package=True
        )
        == []
    )


def test_the_checker_sees_a_circle_and_a_stray_enum() -> None:
    apps, members = PACKAGE / "applications" / "x.py", PACKAGE / "members" / "y.py"
    one_way = {apps: "import gatehouse.storage\n", members: "from gatehouse import applications\n"}
    assert circle(room_arrows(one_way)) == []
    both = {**one_way, apps: "from gatehouse.members.y import z\n"}
    assert circle(room_arrows(both)) == ["applications", "members", "applications"]
    assert enums_defined("class Status(StrEnum):\n    A = 'a'\n") == ["Status"]
    assert enums_defined("class Role(enum.Enum):\n    A = 'a'\n") == ["Role"]
    assert enums_defined("class Row(TypedDict):\n    a: str\n") == []
    assert builds_sql("from sqlalchemy import select\n")
    assert builds_sql("def f():\n    import sqlalchemy.orm\n")
    assert not builds_sql("from sqlalchemy.ext.asyncio import AsyncSession\n")
