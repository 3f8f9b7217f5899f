"""The systemd units of docs/operations.md ("systemd units"), exactly as printed there: systemd
reads every line without a warning, the commands they run exist, and the sandbox rates OK.
Skipped where systemd-analyze is not installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.processes import GATEHOUSE, clean_env, run

DOCS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
UNIT = re.compile(r"`/etc/systemd/system/(gatehouse-[\w@-]+\.service)`:\n\n```ini\n(.*?)```", re.S)
EXPOSURE = re.compile(r"Overall exposure level for \S+: ([0-9.]+) (\w+)")


def units() -> dict[str, str]:
    found = dict(UNIT.findall(DOCS.read_text()))
    assert set(found) == {"gatehouse-serve.service", "gatehouse-worker.service"}
    return found


@pytest.fixture
def analyze() -> str:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed")
    return tool


def written(tmp_path: Path) -> list[Path]:
    """The units, with the venv's gatehouse and an environment file that exists here."""
    env_file = tmp_path / "gatehouse.env"
    env_file.write_text("GATEHOUSE_LOG_LEVEL=INFO\n")
    paths = []
    for name, text in units().items():
        text = text.replace("/opt/gatehouse/bin/gatehouse", GATEHOUSE)
        text = text.replace("/etc/gatehouse/gatehouse.env", str(env_file))
        path = tmp_path / name
        path.write_text(text)
        paths.append(path)
    return paths


def test_systemd_reads_the_units_without_a_warning(analyze: str, tmp_path: Path) -> None:
    paths = written(tmp_path)
    checked = subprocess.run(
        [analyze, "verify", "--man=no", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout + checked.stderr == ""
    for path in paths:
        rated = subprocess.run(
            [analyze, "security", "--offline=true", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        found = EXPOSURE.search(rated.stdout + rated.stderr)
        assert found is not None, rated.stdout[-500:] + rated.stderr[-500:]
        assert float(found.group(1)) <= 2.0, found.group(0)
        assert found.group(2) == "OK", found.group(0)


def test_a_typo_in_a_unit_is_caught(analyze: str, tmp_path: Path) -> None:
    """The check above can fail: a misspelt directive is reported."""
    path = written(tmp_path)[0]
    path.write_text(path.read_text().replace("ProtectClock=yes", "ProtectClok=yes"))
    checked = subprocess.run(
        [analyze, "verify", "--man=no", str(path)], capture_output=True, text=True, timeout=60
    )
    assert "ProtectClok" in checked.stderr


def test_the_commands_of_the_units_are_gatehouse_commands(tmp_path: Path) -> None:
    for text in units().values():
        (command,) = re.findall(r"^ExecStart=(.*)$", text, re.M)
        args = command.split()[1:]
        assert args[0] in ("serve", "worker")
        helped = run([*args, "--help"], clean_env(), tmp_path)
        assert helped.returncode == 0, helped.stderr
        for option in (a for a in args if a.startswith("--")):
            assert option in helped.stdout, option
