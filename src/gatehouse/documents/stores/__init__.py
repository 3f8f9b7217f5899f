"""Where sealed documents are kept: one small interface, three stores (docs/documents.md).

GATEHOUSE_DOCUMENT_STORE names the store new documents go to:

- `database` (the default): the sealed bytes in the `document_blobs` table;
- `file:///absolute/dir`: one file per document, 0600 in a 0700 directory;
- `s3://bucket/prefix`: one object per document in any S3-compatible store, with the
  endpoint, region and credentials of the standard AWS variables.

A store keeps opaque bytes under a name made from the document id; it never sees a
document's plaintext nor its key (`documents/sealing.py`). Each document's custody row
records the location it was written to, so changing the setting leaves older documents
readable where they are.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from typing import Protocol

from gatehouse.storage.db import Database

DATABASE = "database"
# Object names are document ids: letters, digits, `_` and `-` only.
_KEY = re.compile(r"^[A-Za-z0-9_-]{1,120}$")
# The size of the pieces a store reads back.
READ_CHUNK = 1024 * 1024


class ObjectMissing(Exception):
    """The store holds no object under this name."""


class DocumentStore(Protocol):
    """put, get, delete: the whole interface every store gives."""

    @property
    def location(self) -> str:
        """What custody rows record: `database`, `file:///dir` or `s3://bucket/prefix`."""
        ...

    async def put(self, key: str, chunks: Iterator[bytes]) -> int:
        """Keep the bytes of `chunks` under `key` (replacing any); how many were written.

        `chunks` is a blocking iterator (it reads and seals a spooled upload): stores drain
        it in a worker thread. The object is complete or absent, never partial.
        """
        ...

    def get(self, key: str) -> AsyncIterator[bytes]:
        """The object's bytes, in pieces; ObjectMissing when there is none."""
        ...

    async def delete(self, key: str) -> None:
        """Remove the object; nothing happens when there is none."""
        ...


def check_key(key: str) -> str:
    if not _KEY.match(key):
        raise ValueError("object names are document ids")
    return key


def check_location(location: str) -> str:
    """The location, once it has one of the three forms (ValueError otherwise)."""
    if location == DATABASE:
        return location
    if location.startswith("file://"):
        from gatehouse.documents.stores.files import parse_file_location

        parse_file_location(location)
        return location
    if location.startswith("s3://"):
        from gatehouse.documents.stores.s3 import parse_s3_location

        parse_s3_location(location)
        return location
    raise ValueError("use database, file:///absolute/dir or s3://bucket/prefix")


def open_store(location: str, db: Database) -> DocumentStore:
    """The store at `location` (a value of GATEHOUSE_DOCUMENT_STORE or of a custody row)."""
    if location == DATABASE:
        from gatehouse.documents.stores.database import DatabaseStore

        return DatabaseStore(db)
    if location.startswith("file://"):
        from gatehouse.documents.stores.files import FileStore

        return FileStore.at(location)
    if location.startswith("s3://"):
        from gatehouse.documents.stores.s3 import S3Store

        return S3Store.at(location)
    raise ValueError("use database, file:///absolute/dir or s3://bucket/prefix")
