"""Fixtures of the operations tests: an empty database of the suite's kind (SQLite file, or
a PostgreSQL database of its own), and a fresh migrated one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.robustness.conftest import empty_database_url
from tests.support.databases import migrated_database

__all__ = ["empty_database_url", "fresh_database_url"]


@pytest.fixture
def fresh_database_url(tmp_path: Path) -> Iterator[str]:
    """A migrated database of this test's own (not the session's shared one)."""
    folder = tmp_path / "fresh"
    folder.mkdir()
    with migrated_database(folder) as url:
        yield url
