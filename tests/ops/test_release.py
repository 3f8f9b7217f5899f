"""scripts/release (docs/operations.md, "Package names and releases"): one version for the
server and the SDK, written once and copied; the changelogs' Unreleased sections released;
wheels and sdists of `gatehouse-kyc` and `gatehouse-kyc-client` that pass
`twine check --strict` and are the same bytes when built twice from one commit. The image
step needs podman and is skipped here (--no-image); the container test builds the image."""

from __future__ import annotations

import email.parser
import importlib.util
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.architecture.test_citations import repository_files

ROOT = Path(__file__).resolve().parents[2]
VERSION = "9.8.7"


def copy_of_the_repository(target: Path) -> Path:
    """The tracked files as they are now, committed into a fresh repository."""
    for name in repository_files():
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes(source.read_bytes())
            (target / name).chmod(source.stat().st_mode)
    git = ["git", "-C", str(target), "-c", "user.name=t", "-c", "user.email=t@example.test"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "release test"], check=True)
    return target


def release(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GATEHOUSE_RELEASE_PYTHON": sys.executable}
    env.pop("SOURCE_DATE_EPOCH", None)
    return subprocess.run(
        [str(tree / "scripts" / "release"), *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def metadata_of_wheel(path: Path) -> email.message.Message:
    with zipfile.ZipFile(path) as wheel:
        name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(wheel.read(name).decode())


@pytest.mark.slow
def test_a_release_builds_both_distributions_under_one_version(tmp_path: Path) -> None:
    missing = [m for m in ("build", "twine") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"install the development extras (missing: {', '.join(missing)})")
    tree = copy_of_the_repository(tmp_path / "repo")
    done = release(tree, VERSION, "--no-image")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f'__version__ = "{VERSION}"' in (tree / "src/gatehouse/__init__.py").read_text()
    copied = (tree / "client/src/gatehouse_client/_version.py").read_text()
    assert f'__version__ = "{VERSION}"' in copied
    for changelog in ("CHANGELOG.md", "client/CHANGELOG.md"):
        text = (tree / changelog).read_text()
        assert f"\n## {VERSION} - " in text
        assert "\n## Unreleased\n" not in text
    dist = tree / "dist"
    wheels = {
        "gatehouse-kyc": dist / f"gatehouse_kyc-{VERSION}-py3-none-any.whl",
        "gatehouse-kyc-client": dist / f"gatehouse_kyc_client-{VERSION}-py3-none-any.whl",
    }
    for name, wheel in wheels.items():
        metadata = metadata_of_wheel(wheel)
        assert metadata["Name"] == name
        assert metadata["Version"] == VERSION
    with tarfile.open(dist / f"gatehouse_kyc-{VERSION}.tar.gz") as sdist:
        assert f"gatehouse_kyc-{VERSION}/src/gatehouse/__init__.py" in sdist.getnames()
    sums = (dist / "SHA256SUMS").read_text()
    first = sums
    assert len(sums.splitlines()) == 4
    # Built again from the same commit: the same bytes.
    again = release(tree, VERSION, "--no-image")
    assert again.returncode == 0, again.stdout + again.stderr
    assert (dist / "SHA256SUMS").read_text() == first


def test_a_version_that_is_not_one_changes_nothing(tmp_path: Path) -> None:
    tree = copy_of_the_repository(tmp_path / "repo")
    done = release(tree, "next", "--no-image")
    assert done.returncode == 2
    assert "usage: scripts/release X.Y.Z" in done.stderr
    status = subprocess.run(
        ["git", "-C", str(tree), "status", "--porcelain"], capture_output=True, text=True
    )
    assert status.stdout == ""
