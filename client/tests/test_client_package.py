"""The package is ready to publish: `python -m build` makes a wheel and an sdist
of the client, and `twine check --strict` passes on both (README: "Releasing")."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from importlib.metadata import version
from pathlib import Path

import gatehouse_client
import pytest

CLIENT = Path(__file__).resolve().parents[1]
SOURCES = (
    "pyproject.toml",
    "README.md",
    "CHANGELOG.md",
    "LICENSE",
    "MANIFEST.in",
    "src",
    "examples",
)


def require_tools() -> None:
    missing = [m for m in ("build", "twine", "setuptools") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"install the client's dev extras to build it (missing: {', '.join(missing)})")
    if int(version("setuptools").split(".")[0]) < 77:
        pytest.skip("setuptools>=77 is needed to build without isolation (the dev extras have it)")


def run(*args: str | Path, cwd: Path) -> None:
    done = subprocess.run(
        [sys.executable, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"


# 1.5 to 3.5 s here (two builds in subprocesses): below the 5 s that earns `slow`.
def test_build_makes_a_wheel_and_an_sdist_that_pass_twine_check(tmp_path: Path) -> None:
    require_tools()
    # Build from a copy, so no build/ or egg-info lands in the work tree.
    tree = tmp_path / "client"
    tree.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    for name in SOURCES:
        source = CLIENT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=ignore)
        else:
            shutil.copy2(source, tree / name)
    dist = tmp_path / "dist"
    # The default build makes the sdist, then the wheel from the unpacked sdist,
    # so a file missing from the sdist fails here too.
    run("-m", "build", "--no-isolation", "--outdir", dist, tree, cwd=tmp_path)
    expected = gatehouse_client.__version__
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    assert wheel.name == f"gatehouse_kyc_client-{expected}-py3-none-any.whl"
    assert sdist.name == f"gatehouse_kyc_client-{expected}.tar.gz"
    run("-m", "twine", "check", "--strict", wheel, sdist, cwd=tmp_path)

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"gatehouse_kyc_client-{expected}.dist-info"
        metadata = Parser().parsestr(archive.read(f"{info}/METADATA").decode())
    assert "gatehouse_client/py.typed" in names
    assert {"gatehouse_client/signing.py", "gatehouse_client/_event_data.py"} <= names
    assert f"{info}/licenses/LICENSE" in names
    assert not any(n.startswith(("tests/", "examples/")) for n in names)
    assert metadata["Name"] == "gatehouse-kyc-client"
    assert metadata["Version"] == expected
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert "pip install gatehouse-kyc-client" in (metadata.get_payload() or "")
    requires = metadata.get_all("Requires-Dist") or []
    assert [r for r in requires if "extra ==" not in r] == ["httpx>=0.27"]
    assert "Typing :: Typed" in (metadata.get_all("Classifier") or [])
    # No invented addresses: the project has none public yet (pyproject.toml).
    assert metadata.get_all("Project-URL") is None
    assert metadata["Home-page"] is None

    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1] for m in archive.getmembers() if "/" in m.name}
    assert {
        "pyproject.toml",
        "README.md",
        "CHANGELOG.md",
        "LICENSE",
        "src/gatehouse_client/py.typed",
        "examples/fastapi_receiver.py",
    } <= members


def test_the_changelog_has_a_section_for_this_version() -> None:
    changelog = (CLIENT / "CHANGELOG.md").read_text()
    assert f"\n## {gatehouse_client.__version__} " in changelog
