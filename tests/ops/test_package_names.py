"""The package names (docs/operations.md, "Package names and releases").

The name `gatehouse` on PyPI belongs to an unrelated project: the distribution is
`gatehouse-kyc`, the SDK `gatehouse-kyc-client`, and no file of the repository tells anyone to
install `gatehouse` from an index.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.architecture.test_citations import repository_files

ROOT = Path(__file__).resolve().parents[2]
# An install command, up to the end of its line or of its inline code span.
INSTALL = re.compile(
    r"\b(?:pip3?|python3? -m pip|uv pip|pipx|poetry|uv)\s+(?:install|add)\b([^\n`]*)"
)
# Version specifiers and extras after a requirement's name.
SPEC = re.compile(r"[\[=<>~!;@].*$")
TEXT_SUFFIXES = {".md", ".rst", ".txt", ".py", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".sh"}
TEXT_NAMES = {"Containerfile", "Dockerfile", "Makefile"}


def installed_names(text: str) -> list[str]:
    """The requirement names every install command of `text` names (options dropped)."""
    names = []
    for match in INSTALL.finditer(text):
        for token in match.group(1).split():
            token = token.strip("'\"(),")
            if not token or token.startswith(("-", "$", ".", "/", "~")) or "/" in token:
                continue
            names.append(SPEC.sub("", token).lower())
    return names


def text_files() -> list[Path]:
    found = []
    for name in repository_files():
        path = ROOT / name
        if path.is_file() and (path.suffix in TEXT_SUFFIXES or path.name in TEXT_NAMES):
            found.append(path)
    if (ROOT / "scripts").is_dir():
        found.extend(p for p in (ROOT / "scripts").iterdir() if p.is_file())
    return found


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("pip install gatehouse", ["gatehouse"]),
        ("`pip install 'gatehouse[s3]'`", ["gatehouse"]),
        ("python -m pip install -U gatehouse==1.0", ["gatehouse"]),
        ("pip install gatehouse-kyc-client", ["gatehouse-kyc-client"]),
        ("pip install -e '.[dev]'", []),
        ("uv add gatehouse-kyc", ["gatehouse-kyc"]),
    ],
)
def test_the_detector_finds_the_names_an_install_command_names(text: str, names: list[str]) -> None:
    assert installed_names(text) == names


def test_no_file_tells_anyone_to_install_the_unrelated_gatehouse() -> None:
    offending = []
    files = text_files()
    assert len(files) > 100  # the walk found the repository
    for path in files:
        if path == Path(__file__).resolve():
            continue  # this file names the wrong package to check the detector
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        if "gatehouse" in installed_names(text):
            offending.append(str(path.relative_to(ROOT)))
    assert offending == []


def test_the_distributions_are_named_gatehouse_kyc() -> None:
    server = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    client = tomllib.loads((ROOT / "client/pyproject.toml").read_text())["project"]
    assert server["name"] == "gatehouse-kyc"
    assert client["name"] == "gatehouse-kyc-client"
    assert server["scripts"]["gatehouse"] == "gatehouse.cli:main"  # the command stays


def test_the_server_and_the_sdk_share_one_version() -> None:
    server = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" in server["project"]["dynamic"]
    assert server["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "gatehouse.__version__"}
    import gatehouse_client

    import gatehouse

    assert gatehouse_client.__version__ == gatehouse.__version__
