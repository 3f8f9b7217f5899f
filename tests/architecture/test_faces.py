"""Each feature's face (docs/architecture.md, "Faces"), checked from the imports.

A feature's `__init__.py` names in `__all__` what the rest of the package may use. Every
module outside the feature (another feature, a surface, composition, an entry point) takes
those names from the face, `from gatehouse.cases import case_file`, or uses the face module
itself, `from gatehouse import insights` then `insights.compute_insights`; it never imports
`gatehouse.cases.queries` or any other module inside the feature. Inside a feature, modules
import their siblings directly (never their own face, which imports them).

Every import counts: relative ones, imports inside functions, imports under `TYPE_CHECKING`.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.architecture.test_layout import BANDS, PACKAGE, module_of, modules, room_of

FEATURES = frozenset(BANDS[2])


def face_names(source: str) -> list[str] | None:
    """The literal `__all__` of a face's source, or None when it has none."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            value = ast.literal_eval(node.value)
            return [str(name) for name in value]
    return None


def faces() -> dict[str, frozenset[str]]:
    """Feature -> the names its face offers."""
    found = {}
    for feature in sorted(FEATURES):
        names = face_names((PACKAGE / feature / "__init__.py").read_text())
        found[feature] = frozenset(names or ())
    return found


def _imported(node: ast.ImportFrom, package: list[str]) -> str:
    if not node.level:
        return node.module or ""
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _face_module(name: str, room: str) -> str | None:
    """The feature `gatehouse.<feature>` names when it is another feature's face."""
    parts = name.split(".")
    if len(parts) == 2 and parts[0] == "gatehouse" and parts[1] in FEATURES and parts[1] != room:
        return parts[1]
    return None


def _inside(name: str, room: str) -> str | None:
    """The feature whose inside `name` is (`gatehouse.cases.queries`), when not `room`'s."""
    parts = name.split(".")
    if len(parts) > 2 and parts[0] == "gatehouse" and parts[1] in FEATURES and parts[1] != room:
        return parts[1]
    return None


def _advice(feature: str, names: list[str]) -> str:
    return f"use the face: from gatehouse.{feature} import {', '.join(names)}"


def face_breaches(
    source: str,
    module: str,
    offered: Mapping[str, frozenset[str]],
    *,
    is_package: bool = False,
) -> Iterator[str]:
    """Each import of `source` that reaches into another feature instead of its face."""
    room = module.split(".")[1]
    package = module.split(".") if is_package else module.split(".")[:-1]
    bound: dict[str, str] = {}  # local name -> feature, for `from gatehouse import cases`
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if feature := _inside(alias.name, room):
                    yield f"import {alias.name}: {_advice(feature, ['...'])}"
                elif (feature := _face_module(alias.name, room)) and alias.asname:
                    bound[alias.asname] = feature
                elif feature:
                    yield f"import {alias.name}: write from gatehouse.{feature} import <name>"
        elif isinstance(node, ast.ImportFrom):
            name = _imported(node, package)
            names = [alias.name for alias in node.names]
            if feature := _inside(name, room):
                yield f"from {name} import {', '.join(names)}: {_advice(feature, names)}"
            elif feature := _face_module(name, room):
                missing = [n for n in names if n not in offered.get(feature, frozenset())]
                if missing:
                    yield (
                        f"from {name} import {', '.join(missing)}: gatehouse.{feature}.__all__ "
                        "does not offer it (add it to the face, or use what the face offers)"
                    )
            elif name == "gatehouse":
                for alias in node.names:
                    if alias.name in FEATURES and alias.name != room:
                        bound[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and (feature := bound.get(node.value.id))
            and node.attr not in offered.get(feature, frozenset())
        ):
            yield (
                f"{node.value.id}.{node.attr}: gatehouse.{feature}.__all__ does not offer "
                f"{node.attr}"
            )


def _label(path: Path) -> str:
    return str(path.relative_to(PACKAGE))


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_every_feature_has_a_face(feature: str) -> None:
    """A literal `__all__` in the feature's `__init__.py`, each name of it really there."""
    face = PACKAGE / feature / "__init__.py"
    names = face_names(face.read_text())
    assert names is not None, f"{_label(face)}: give the feature a face, an `__all__` list"
    assert len(names) == len(set(names)), f"{_label(face)}: a name twice in __all__"
    loaded = importlib.import_module(f"gatehouse.{feature}")
    absent = [name for name in names if not hasattr(loaded, name)]
    assert absent == [], f"{_label(face)}: __all__ names what the face does not hold: {absent}"


def test_features_are_reached_only_through_their_faces() -> None:
    offered = faces()
    found = [
        f"{_label(path)}: {breach}"
        for path in modules()
        if room_of(path) not in BANDS[1] | BANDS[0]
        for breach in face_breaches(
            path.read_text(), module_of(path), offered, is_package=path.name == "__init__.py"
        )
    ]
    assert found == [], "imports into another feature's modules:\n" + "\n".join(found)


def test_the_checker_sees_an_import_past_a_face() -> None:
    """The rule is not vacuous: each way round the face is caught, the face itself is not."""
    offered = {"cases": frozenset({"case_file", "Note"}), "insights": frozenset({"charts_of"})}
    here = "gatehouse.decisions.service"
    breaches = [
        "from gatehouse.cases.queries import staff_application_view",
        "from gatehouse.cases import queries",  # a module the face does not offer
        "import gatehouse.cases.queries",
        "import gatehouse.cases",  # reach attributes unchecked: name what you use
        "from ..cases.case_file import case_file",  # the same, written relative
        "def f():\n    from gatehouse.cases.schemas import Note",
        "if TYPE_CHECKING:\n    from gatehouse.cases.schemas import Note",
        "from gatehouse.cases import colleagues",  # not in __all__
        "from gatehouse import insights\ninsights.duration_words(1)",
    ]
    for source in breaches:
        assert len(list(face_breaches(source + "\n", here, offered))) == 1, source
    message = next(face_breaches("from gatehouse.cases.queries import x\n", here, offered))
    assert message == (
        "from gatehouse.cases.queries import x: use the face: from gatehouse.cases import x"
    )
    fine = (
        "from gatehouse.cases import Note, case_file\n"
        "from gatehouse import insights\ninsights.charts_of(1)\n"
        "from gatehouse.decisions.queries import x\nfrom . import queries\n"
        "from gatehouse.storage.tables.core import Tenant\nfrom gatehouse import errors\n"
    )
    assert list(face_breaches(fine, here, offered)) == []
    # A feature's own modules, and a surface through the face, are fine.
    inside = "from gatehouse.cases.queries import x\n"
    assert list(face_breaches(inside, "gatehouse.cases.service", offered)) == []
    surface = "from gatehouse.cases import case_file\n"
    assert list(face_breaches(surface, "gatehouse.staff.cases", offered)) == []
    assert list(face_breaches(inside, "gatehouse.staff.cases", offered))


def test_the_checker_reads_a_face() -> None:
    assert face_names('"""Doc."""\nfrom x import a\n__all__ = ["a", "B"]\n') == ["a", "B"]
    assert face_names('"""Doc."""\n') is None


LIGHT_PROBE = """
import importlib, sys
for feature in sys.argv[1:]:
    importlib.import_module('gatehouse.' + feature)
print(','.join(sorted(m for m in sys.modules if m.startswith((
    'gatehouse.screening.worker', 'gatehouse.screening.lists', 'gatehouse.screening.pool',
    'gatehouse.screening.matching', 'gatehouse.webhooks.delivery',
    'gatehouse.verification.delivery', 'multiprocessing', 'nomenklatura', 'followthemoney',
    'rigour')))))
"""


def _heavy_after_importing(*modules: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", LIGHT_PROBE, *modules],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout.strip()


def test_faces_are_light() -> None:
    """Importing every face loads no worker, no process pool and no matching library: they
    load when composition (or the CLI) first calls them. The probe does see one loaded."""
    assert _heavy_after_importing(*sorted(FEATURES)) == ""
    assert "gatehouse.webhooks.delivery" in _heavy_after_importing("webhooks.delivery")
