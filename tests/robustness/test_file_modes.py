"""Files the service creates are readable by their owner only (mode 0600), whatever the
umask: the SQLite database and its -wal and -shm files, the generated secret key, the
migration lock, stored documents (docs/platform.md, "Operations"). SQLite only: these are
the files of a SQLite installation.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gatehouse.documents.stores.files import FileStore
from gatehouse.settings import SECRET_KEY_FILE, Settings
from gatehouse.storage.db import Database
from gatehouse.storage.migrate import lock_path, upgrade_async
from gatehouse.storage.tables.core import AuditEntry
from tests.robustness.test_migration_race import start_together
from tests.support.processes import clean_env


def mode(path: Path | str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The usual umask (022): files are world-readable unless the service says otherwise."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


async def test_the_database_and_its_wal_and_shm_files_are_0600(
    tmp_path: Path, open_umask: None
) -> None:
    database = tmp_path / "gatehouse.db"
    url = f"sqlite:///{database}"
    await upgrade_async(url)
    assert mode(database) == 0o600
    assert mode(lock_path(url)) == 0o600
    db = Database(url)
    try:
        async with db.write() as session:  # WAL mode: -wal and -shm exist while open
            session.add(
                AuditEntry(id="aud_mode", at=datetime.now(UTC), actor="t", action="t", target="t")
            )
        async with db.read() as session:
            await session.get(AuditEntry, "aud_mode")
        for suffix in ("", "-wal", "-shm"):
            assert mode(f"{database}{suffix}") == 0o600, suffix
    finally:
        await db.dispose()


async def test_files_left_world_readable_by_an_earlier_version_are_narrowed(
    tmp_path: Path, open_umask: None
) -> None:
    database = tmp_path / "old.db"
    url = f"sqlite:///{database}"
    await upgrade_async(url)
    for suffix in ("", "-wal", "-shm"):
        os.close(os.open(f"{database}{suffix}", os.O_CREAT | os.O_RDWR, 0o644))
        os.chmod(f"{database}{suffix}", 0o644)
    db = Database(url)
    try:
        for suffix in ("", "-wal", "-shm"):
            assert mode(f"{database}{suffix}") == 0o600, suffix
    finally:
        await db.dispose()


def test_the_generated_secret_key_is_0600_from_its_creation(
    tmp_path: Path, open_umask: None
) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/data/gatehouse.db")
    key = settings.resolved_secret_key()
    key_file = tmp_path / "data" / SECRET_KEY_FILE
    assert mode(key_file) == 0o600
    assert key_file.read_text() == key
    assert len(key) >= 32
    # No temporary file is left beside it.
    assert sorted(p.name for p in key_file.parent.iterdir()) == [SECRET_KEY_FILE]


_PRINT_KEY = """
import hashlib, os, sys, time
from gatehouse.settings import Settings
folder, count = sys.argv[1], int(sys.argv[2])
open(os.path.join(folder, str(os.getpid())), "w").close()
while len(os.listdir(folder)) < count:
    time.sleep(0.002)
print(hashlib.sha256(Settings().resolved_secret_key().encode()).hexdigest())
"""


def test_processes_starting_together_share_one_generated_key(tmp_path: Path) -> None:
    count = 6
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    env = clean_env(database_url=f"sqlite:///{tmp_path}/data/gatehouse.db")
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _PRINT_KEY, str(barrier), str(count)],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    digests = set()
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        digests.add(out.strip())
    stored = (tmp_path / "data" / SECRET_KEY_FILE).read_text().strip()
    assert digests == {hashlib.sha256(stored.encode()).hexdigest()}
    assert mode(tmp_path / "data" / SECRET_KEY_FILE) == 0o600


@pytest.mark.slow
async def test_migrate_processes_leave_every_file_0600(tmp_path: Path) -> None:
    env = clean_env(database_url=f"sqlite:///{tmp_path}/data/gatehouse.db")
    (tmp_path / "data").mkdir()
    results = start_together(["migrate"], 4, env, tmp_path)
    assert [r.returncode for r in results] == [0] * 4, [r.stderr[-500:] for r in results]
    for path in (tmp_path / "data").iterdir():
        assert mode(path) == 0o600, path.name


async def test_stored_documents_are_0600_in_a_0700_folder(tmp_path: Path, open_umask: None) -> None:
    store = FileStore.at(f"file://{tmp_path}/documents")
    await store.put("doc_mode", iter([b"sealed bytes"]))
    assert mode(tmp_path / "documents") == 0o700
    assert mode(tmp_path / "documents" / "doc_mode") == 0o600
