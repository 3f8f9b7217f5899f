"""Loading a watchlist (docs/screening.md, "Lists"): `gatehouse screening load PATH --list NAME`.

The file's SHA-256 is its version: the same content again changes nothing. Otherwise the
entities are written in batches under a new generation that nothing reads yet; a bad line
deletes what was written and refuses the load, naming its line. The switch to the new
generation, and the re-screening it starts, commit in one transaction; the old generation's
rows are deleted afterwards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from gatehouse.errors import invalid_argument
from gatehouse.runtime import Runtime
from gatehouse.screening import jobs, queries
from gatehouse.screening.pool import require_matching

BATCH = 2000
MAX_NAME = 100
MAX_LINE = 1_000_000


@dataclass(frozen=True, slots=True)
class LoadResult:
    list: str
    entities: int
    version: str
    changed: bool


class BadLine(ValueError):
    def __init__(self, number: int, reason: str) -> None:
        super().__init__(f"line {number}: {reason}; nothing was loaded")
        self.number = number


def file_version(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def valid_list_name(name: str) -> str:
    clean = name.strip()
    if not clean or len(clean) > MAX_NAME or not clean.isprintable():
        raise invalid_argument("The list name is 1 to 100 printable characters.", "list")
    return clean


def _lines(handle: BinaryIO) -> Iterator[tuple[int, bytes]]:
    for number, line in enumerate(handle, start=1):
        if len(line) > MAX_LINE:
            raise BadLine(number, f"longer than {MAX_LINE} bytes")
        stripped = line.strip()
        if stripped:
            yield number, stripped


async def load_list(runtime: Runtime, path: Path, name: str) -> LoadResult:
    """Load or replace the list `name` from an `entities.ftm.json` file."""
    require_matching()
    from gatehouse.screening.matching import ListLineError, read_line

    name = valid_list_name(name)
    version = file_version(path)
    async with runtime.db.read() as session:
        current = await queries.list_row(session, name)
    if current is not None and current.version == version:
        return LoadResult(name, current.entities, version, changed=False)
    async with runtime.db.write() as session:
        generation = await queries.new_generation(session, name, runtime.now())
    kept = 0
    try:
        batch = []
        with path.open("rb") as handle:
            for number, line in _lines(handle):
                try:
                    entity = read_line(line)
                except ListLineError as exc:
                    raise BadLine(number, str(exc)) from None
                if entity is None:
                    continue
                batch.append(entity)
                if len(batch) >= BATCH:
                    await _write(runtime, generation, kept, batch)
                    kept += len(batch)
                    batch = []
        if batch:
            await _write(runtime, generation, kept, batch)
            kept += len(batch)
        async with runtime.db.write() as session:
            old = await queries.switch_list(session, name, generation, version, kept, runtime.now())
            await jobs.enqueue_monitoring(session, runtime.now())
    except BaseException:
        await _drop(runtime, generation)
        raise
    if old is not None:
        await _drop(runtime, old)
    return LoadResult(name, kept, version, changed=True)


async def _write(runtime: Runtime, generation: int, offset: int, batch: Sequence[Any]) -> None:
    async with runtime.db.write() as session:
        await queries.insert_entities(session, generation, offset, batch)


async def _drop(runtime: Runtime, generation: int) -> None:
    """Delete one generation's rows, a part per transaction (the writer is never held long)."""
    for part in range(queries.KEY_RANGES):
        async with runtime.db.write() as session:
            await queries.delete_generation(session, generation, part)
