"""The `file:///absolute/dir` store: one file per document, named by its id.

The directory is created 0700 (and kept so); every file is created 0600. A file is written
under a temporary name, flushed to disk and renamed into place, so a reader sees a complete
object or none. Back the directory up with the database (docs/documents.md, "Operations").
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

from gatehouse.documents.stores import READ_CHUNK, ObjectMissing, check_key

DIRECTORY_MODE = 0o700


def parse_file_location(location: str) -> Path:
    parts = urlsplit(location)
    path = unquote(parts.path)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or not path:
        raise ValueError("a file store is file:///absolute/dir")
    if not path.startswith("/"):
        raise ValueError("a file store needs an absolute directory: file:///absolute/dir")
    return Path(path)


def _sync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class FileStore:
    def __init__(self, root: Path, location: str) -> None:
        self.root = root
        self._location = location
        self._ready = False

    @classmethod
    def at(cls, location: str) -> FileStore:
        return cls(parse_file_location(location), location)

    @property
    def location(self) -> str:
        return self._location

    def _prepare(self) -> None:
        if self._ready:
            return
        self.root.mkdir(mode=DIRECTORY_MODE, parents=True, exist_ok=True)
        if self.root.stat().st_mode & 0o777 != DIRECTORY_MODE:
            self.root.chmod(DIRECTORY_MODE)
        self._ready = True

    def _write(self, key: str, chunks: Iterator[bytes]) -> int:
        self._prepare()
        # mkstemp creates the file 0600, with a name no other writer can take.
        fd, temporary = tempfile.mkstemp(prefix=f".{key}.", suffix=".part", dir=self.root)
        written = 0
        try:
            with os.fdopen(fd, "wb") as out:
                for chunk in chunks:
                    out.write(chunk)
                    written += len(chunk)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.root / key)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise
        _sync_directory(self.root)
        return written

    async def put(self, key: str, chunks: Iterator[bytes]) -> int:
        return await asyncio.to_thread(self._write, check_key(key), chunks)

    def _open(self, key: str) -> BinaryIO:
        try:
            return open(self.root / key, "rb")
        except FileNotFoundError:
            raise ObjectMissing(key) from None

    async def get(self, key: str) -> AsyncIterator[bytes]:
        source = await asyncio.to_thread(self._open, check_key(key))
        try:
            while chunk := await asyncio.to_thread(source.read, READ_CHUNK):
                yield chunk
        finally:
            source.close()

    def _remove(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.root / key)
        if self.root.exists():
            _sync_directory(self.root)

    async def delete(self, key: str) -> None:
        await asyncio.to_thread(self._remove, check_key(key))
