"""Custody of document bytes (docs/documents.md): sealing an upload into the store, opening
it for review, discarding it after erasure, and moving documents stored before custody
existed (clear bytes in `documents.content`) into the store.

Every document is sealed under a data key of its own (`documents/sealing.py`); the data key is
sealed by the key ring and kept in the document's custody row, never in the store. Whoever
holds the store alone holds ciphertext; whoever holds the database alone holds sealed keys.
"""

from __future__ import annotations

import io
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.crypto import Crypto
from gatehouse.documents.sealing import Sealer, new_data_key, open_sealed
from gatehouse.documents.stores import DocumentStore, open_store
from gatehouse.storage.db import Database
from gatehouse.storage.tables.applications import Document
from gatehouse.storage.tables.documents_custody import DocumentCustody

log = logging.getLogger("gatehouse.documents")

DISCARD_BATCH = 100


@dataclass(frozen=True, slots=True)
class Deposit:
    """A sealed object now in a store, and what its custody row must record."""

    location: str
    object_key: str
    data_key_encrypted: str
    sha256: str
    size: int
    stored_size: int

    def custody_row(self, document_id: str, at: datetime) -> DocumentCustody:
        return DocumentCustody(
            document_id=document_id,
            store=self.location,
            object_key=self.object_key,
            data_key_encrypted=self.data_key_encrypted,
            sha256=self.sha256,
            stored_size=self.stored_size,
            stored_at=at,
        )


async def deposit(
    store: DocumentStore, crypto: Crypto, document_id: str, source: BinaryIO
) -> Deposit:
    """Seal `source` (read from its start) under a fresh data key and put it in `store`."""
    data_key = new_data_key()
    source.seek(0)
    sealer = Sealer(data_key, document_id, source)
    stored = await store.put(document_id, iter(sealer))
    return Deposit(
        location=store.location,
        object_key=document_id,
        data_key_encrypted=crypto.encrypt(data_key),
        sha256=sealer.sha256,
        size=sealer.size,
        stored_size=stored,
    )


async def forget_deposit(store: DocumentStore, made: Deposit) -> None:
    """Remove an object whose custody row was never committed."""
    try:
        await store.delete(made.object_key)
    except Exception:
        log.exception(
            "could not remove an object whose document was not recorded",
            extra={"store": store.location, "object": made.object_key},
        )


def original_bytes(db: Database, crypto: Crypto, custody: DocumentCustody) -> AsyncIterator[bytes]:
    """The document's original bytes, opened segment by segment from its store.

    Raises UndecryptableError (key ring), ObjectMissing (store) or SealBroken (altered object)
    as the stream is read.
    """
    if custody.data_key_encrypted is None:
        raise ValueError("an erased document has no bytes")
    data_key = crypto.decrypt(custody.data_key_encrypted)
    store = open_store(custody.store, db)
    return open_sealed(data_key, custody.document_id, store.get(custody.object_key))


async def shred(session: AsyncSession, application_id: str) -> int:
    """Clear the data keys of an application's documents, in the erasure's transaction.

    From its commit on, no copy of the objects (the store, its backups) can be opened; the
    objects themselves are deleted by `discard_erased` right after. Returns how many.
    """
    documents = select(Document.id).where(Document.application_id == application_id)
    shredded = await session.execute(
        update(DocumentCustody)
        .where(DocumentCustody.document_id.in_(documents))
        .values(data_key_encrypted=None)
    )
    return int(shredded.rowcount or 0)  # type: ignore[attr-defined]


async def discard_erased(db: Database) -> int:
    """Delete the objects of erased documents from their stores, then their custody rows.

    Erasure cleared their data keys in its own transaction; this runs right after it, and
    again from the sweep for anything a store refused then. Returns how many were deleted.
    """
    async with db.read() as session:
        rows = (
            (
                await session.execute(
                    select(
                        DocumentCustody.document_id,
                        DocumentCustody.store,
                        DocumentCustody.object_key,
                    )
                    .where(DocumentCustody.data_key_encrypted.is_(None))
                    .order_by(DocumentCustody.document_id)
                    .limit(DISCARD_BATCH)
                )
            )
            .tuples()
            .all()
        )
    discarded = 0
    for document_id, location, object_key in rows:
        try:
            await open_store(location, db).delete(object_key)
        except Exception:
            log.exception(
                "could not delete an erased document's object; the sweep tries again",
                extra={"store": location, "document_id": document_id},
            )
            continue
        async with db.write() as session:
            await session.execute(
                delete(DocumentCustody).where(
                    DocumentCustody.document_id == document_id,
                    DocumentCustody.data_key_encrypted.is_(None),
                )
            )
        discarded += 1
    return discarded


async def seal_legacy_documents(
    db: Database, crypto: Crypto, store: DocumentStore, now: datetime
) -> int:
    """Move documents whose clear bytes are still in `documents.content` into `store`.

    One document at a time, each in its own transaction: its bytes are sealed and stored, its
    custody row written and the column cleared together. Run by `gatehouse keys rotate`;
    returns how many documents moved.
    """
    sealed = 0
    skipped: list[str] = []
    while True:
        async with db.read() as session:
            query = (
                select(Document.id, Document.content)
                .outerjoin(DocumentCustody, DocumentCustody.document_id == Document.id)
                .where(Document.content.is_not(None), DocumentCustody.document_id.is_(None))
                .order_by(Document.id)
                .limit(1)
            )
            if skipped:
                query = query.where(Document.id.not_in(skipped))
            row = (await session.execute(query)).tuples().first()
        if row is None:
            return sealed
        document_id, content = row
        if content is None:  # the query asks for rows with content
            raise RuntimeError(f"document {document_id} lost its content while being moved")
        made = await deposit(store, crypto, document_id, io.BytesIO(content))
        async with db.write() as session:
            moved = await session.execute(
                update(Document)
                .where(Document.id == document_id, Document.content.is_not(None))
                .values(content=None)
            )
            if moved.rowcount == 1:  # type: ignore[attr-defined]
                session.add(made.custody_row(document_id, now))
        if moved.rowcount == 1:  # type: ignore[attr-defined]
            sealed += 1
        else:  # erased, or moved by another process, meanwhile
            await forget_deposit(store, made)
            skipped.append(document_id)
