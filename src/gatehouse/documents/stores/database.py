"""The `database` store: sealed bytes in `document_blobs`, in parts of at most 1 MiB.

Parts are written in one transaction (an object is complete or absent) and read back one part
per query, so neither way holds a whole document in memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

from sqlalchemy import delete, insert, select

from gatehouse.documents.stores import DATABASE, ObjectMissing, check_key
from gatehouse.storage.db import Database
from gatehouse.storage.tables.documents_custody import DocumentBlob

PART = 1024 * 1024


class _Parts:
    """Cuts a stream of chunks into parts of exactly PART bytes (the last one shorter)."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._pending = bytearray()

    def next(self) -> bytes:
        """The next part, empty once the chunks are spent; blocking (runs in a thread)."""
        while len(self._pending) < PART:
            chunk = next(self._chunks, None)
            if chunk is None:
                break
            self._pending += chunk
        part = bytes(self._pending[:PART])
        del self._pending[:PART]
        return part


class DatabaseStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    @property
    def location(self) -> str:
        return DATABASE

    async def put(self, key: str, chunks: Iterator[bytes]) -> int:
        check_key(key)
        written = 0
        parts = _Parts(chunks)
        # Seal the first part before the write transaction starts (SQLite has one writer).
        part = await asyncio.to_thread(parts.next)
        async with self._db.write() as session:
            await session.execute(delete(DocumentBlob).where(DocumentBlob.object_key == key))
            index = 0
            while part:
                await session.execute(
                    insert(DocumentBlob).values(object_key=key, part=index, data=part)
                )
                written += len(part)
                index += 1
                part = await asyncio.to_thread(parts.next)
        return written

    async def get(self, key: str) -> AsyncIterator[bytes]:
        check_key(key)
        index = 0
        while True:
            async with self._db.read() as session:
                data = (
                    await session.execute(
                        select(DocumentBlob.data).where(
                            DocumentBlob.object_key == key, DocumentBlob.part == index
                        )
                    )
                ).scalar_one_or_none()
            if data is None:
                if index == 0:
                    raise ObjectMissing(key)
                return
            yield bytes(data)
            index += 1

    async def delete(self, key: str) -> None:
        check_key(key)
        async with self._db.write() as session:
            await session.execute(delete(DocumentBlob).where(DocumentBlob.object_key == key))
