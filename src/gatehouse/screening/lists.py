"""Loading a watchlist (docs/screening.md, "Lists"): `gatehouse screening load PATH --list NAME`.

The file's SHA-256 is its version: the same content again changes nothing. Otherwise the
entities are written in batches under a new generation that nothing reads yet; a bad line
deletes what was written and refuses the load, naming its line. The switch to the new
generation, and the re-screening it starts, commit in one transaction; the old generation's
rows are deleted afterwards.
"""

from __future__ import annotations

import asyncio
import hashlib
import multiprocessing
import os
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO

from gatehouse.errors import invalid_argument
from gatehouse.runtime import Runtime
from gatehouse.screening import jobs, queries
from gatehouse.screening.pool import require_matching
from gatehouse.screening.schemas import BadLine, LoadResult

BATCH = 2000
MAX_NAME = 100
MAX_LINE = 1_000_000
# Files from this size are read by loader processes (docs/screening.md, "Operating it").
PARALLEL_FROM_BYTES = 8_000_000


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


def parse_chunk(chunk: list[tuple[int, bytes]]) -> list[Any] | tuple[int, str]:
    """The screened entities of some numbered lines, or (line number, reason) of the first
    bad one. Runs in this process or in a loader process."""
    from gatehouse.screening.matching import ListLineError, read_line

    kept = []
    for number, line in chunk:
        try:
            entity = read_line(line)
        except ListLineError as exc:
            return number, str(exc)
        if entity is not None:
            kept.append(entity)
    return kept


def _chunks(handle: BinaryIO) -> Iterator[list[tuple[int, bytes]]]:
    chunk: list[tuple[int, bytes]] = []
    for numbered in _lines(handle):
        chunk.append(numbered)
        if len(chunk) >= BATCH:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _loaders(path: Path) -> tuple[ProcessPoolExecutor | None, int]:
    """Loader processes for a large file (one per core, at most 4), none for a small one:
    each loads the name tables first (seconds), which only pays off on many entities."""
    cores = min(4, os.cpu_count() or 1)
    if cores < 2 or path.stat().st_size < PARALLEL_FROM_BYTES:
        return None, 0
    return ProcessPoolExecutor(cores, mp_context=multiprocessing.get_context("spawn")), cores


async def _read_into(runtime: Runtime, path: Path, generation: int) -> int:
    """Read the file into `generation`; how many entities were kept. BadLine on a bad line."""
    kept = 0
    pool, cores = _loaders(path)
    loop = asyncio.get_running_loop()
    pending: deque[asyncio.Future[list[Any] | tuple[int, str]]] = deque()

    async def write_next() -> None:
        nonlocal kept
        parsed = await pending.popleft()
        if isinstance(parsed, tuple):
            raise BadLine(*parsed)
        await _write(runtime, generation, kept, parsed)
        kept += len(parsed)

    try:
        with path.open("rb") as handle:
            for chunk in _chunks(handle):
                if pool is None:
                    pending.append(asyncio.get_running_loop().create_future())
                    pending[-1].set_result(parse_chunk(chunk))
                else:
                    pending.append(loop.run_in_executor(pool, parse_chunk, chunk))
                if len(pending) > 2 * cores:
                    await write_next()
        while pending:
            await write_next()
    finally:
        for future in pending:
            future.cancel()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
    return kept


async def load_list(runtime: Runtime, path: Path, name: str) -> LoadResult:
    """Load or replace the list `name` from an `entities.ftm.json` file."""
    require_matching()
    name = valid_list_name(name)
    version = file_version(path)
    async with runtime.db.read() as session:
        current = await queries.list_row(session, name)
    if current is not None and current.version == version:
        return LoadResult(name, current.entities, version, changed=False)
    async with runtime.db.write() as session:
        generation = await queries.new_generation(session, name, runtime.now())
    try:
        kept = await _read_into(runtime, path, generation)
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
