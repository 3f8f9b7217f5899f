"""Every setting of the code is documented, with its default, and priced
(docs/reference/settings.md §2, docs/operations.md "What each setting costs"); every
documented setting is one the code reads. A new field of `Settings` without its row fails here."""

from __future__ import annotations

import re
from pathlib import Path

from gatehouse.settings import Settings

DOCS = Path(__file__).resolve().parents[2] / "docs"
ROW = re.compile(r"^\| `(GATEHOUSE_[A-Z0-9_]+)` \| ([^|]*) \|", re.M)
# Read by the `worker` command's options (cli.py), not by the settings class.
COMMAND_OPTIONS = {"GATEHOUSE_WORKER_METRICS_PORT", "GATEHOUSE_WORKER_METRICS_HOST"}
# No default value: found when a command starts (serve's address; the generated key).
FOUND_AT_START = {"GATEHOUSE_PUBLIC_URL", "GATEHOUSE_SECRET_KEY"}


def documented() -> dict[str, str]:
    text = (DOCS / "reference" / "settings.md").read_text()
    return {name: default.strip() for name, default in ROW.findall(text)}


def variables() -> dict[str, object]:
    return {f"GATEHOUSE_{name.upper()}": f.default for name, f in Settings.model_fields.items()}


def test_every_setting_has_one_row_and_every_row_is_a_setting() -> None:
    text = (DOCS / "reference" / "settings.md").read_text()
    names = [name for name, _ in ROW.findall(text)]
    assert len(names) == len(set(names)), "a setting has two rows"
    assert sorted(set(variables()) - set(names)) == []
    assert sorted(set(names) - set(variables()) - COMMAND_OPTIONS) == []


def test_documented_defaults_are_the_code_defaults() -> None:
    rows = documented()
    for name, default in variables().items():
        if default is None:
            # Unset, or a value found at start and explained in words.
            assert rows[name] == "unset" or name in FOUND_AT_START, (name, rows[name])
            continue
        shown = re.match(r"`([^`]*)`", rows[name])
        assert shown is not None, (name, rows[name])
        expected = str(default).lower() if isinstance(default, bool) else str(default)
        assert shown.group(1) == expected, (name, shown.group(1), default)


def test_every_setting_is_priced_in_the_operator_guide() -> None:
    text = (DOCS / "operations.md").read_text()
    table = text[text.index("## What each setting costs") :]
    first_cells = re.findall(r"^\| ([^|]*) \|", table, re.M)
    priced: set[str] = set()
    for cell in first_cells:
        names = re.findall(r"`(GATEHOUSE_[A-Z0-9_]+|_[A-Z0-9_]+)`", cell)
        full = [n for n in names if n.startswith("GATEHOUSE_")]
        priced.update(full)
        # "`GATEHOUSE_RATE_LIMIT_PER_KEY`, `_PER_IP`": a suffix stands for the variable that
        # ends with it and otherwise begins like the cell's first name.
        for suffix in (n for n in names if not n.startswith("GATEHOUSE_") and full):
            priced.update(
                name
                for name in set(variables()) | COMMAND_OPTIONS
                if name.endswith(suffix) and full[0].startswith(name[: -len(suffix)])
            )
    missing = sorted((set(variables()) | COMMAND_OPTIONS) - priced)
    assert missing == [], missing
