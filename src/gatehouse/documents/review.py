"""Staff opening a document for review (docs/reference/staff-api.md §10, docs/documents.md).

The original bytes come back with the type sniffed at upload and a download name made from
the document id; every opening is audited as `document.view` (who, when). An erased document
is 410. A document uploaded before custody existed (clear bytes still in `documents.content`,
until `gatehouse keys rotate` moves it) is served from there.

The first piece is read before the caller starts answering, so a document that cannot be
opened (a key removed from the ring, a missing or altered object) is a clean 500; a fault
further in cuts the download off, and is logged.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

from sqlalchemy import select

from gatehouse.audit.context import Acting, WriteContext
from gatehouse.crypto import UndecryptableError
from gatehouse.documents.custody import original_bytes
from gatehouse.documents.sealing import SealBroken
from gatehouse.documents.sniff import EXTENSIONS, sniff
from gatehouse.documents.stores import ObjectMissing
from gatehouse.errors import FAILED_PRECONDITION, GONE, INTERNAL, GatehouseError, not_found
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Document
from gatehouse.storage.tables.documents_custody import DocumentCustody

log = logging.getLogger("gatehouse.documents")

FALLBACK_MEDIA_TYPE = "application/octet-stream"


@dataclass(frozen=True, slots=True)
class Content:
    """An opened document: its media type, download name and bytes (read once)."""

    document_id: str
    application_id: str
    media_type: str
    size: int
    chunks: AsyncIterator[bytes]

    @property
    def filename(self) -> str:
        return f"{self.document_id}.{EXTENSIONS.get(self.media_type, 'bin')}"


def erased() -> GatehouseError:
    return GatehouseError(GONE, "The document was erased with its application.")


def unreadable() -> GatehouseError:
    return GatehouseError(INTERNAL, "The document cannot be opened; see the service's log.")


async def _with_first(first: bytes, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    yield first
    try:
        async for chunk in rest:
            yield chunk
    except (SealBroken, ObjectMissing, OSError) as exc:
        log.error(
            "a document stopped opening midway; the download was cut off",
            extra={"error": type(exc).__name__},
        )
        raise


async def _single(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def open_document(
    runtime: Runtime,
    staff: Acting,
    request_id: str | None,
    document_id: str,
    *,
    action: str = "document.view",
    only: frozenset[str] | None = None,
) -> Content:
    """The document's bytes for a reviewer; audited as `action` (`document.view`, or
    `document.thumbnail` for the case page's thumbnails, documents/thumbnails.py). With
    `only`, a document of another media type is refused (failed-precondition) before it is
    opened or audited."""
    async with runtime.db.read() as session:
        found = (
            await session.execute(
                select(
                    Document.application_id,
                    Document.status,
                    Document.content_type,
                    Document.size_bytes,
                    Application.erased_at,
                    Application.tenant_id,
                )
                .join(Application, Application.id == Document.application_id)
                .where(Document.id == document_id)
            )
        ).first()
        if found is None:
            raise not_found("No document with this id.")
        if found.status == "erased" or found.erased_at is not None:
            raise erased()
        if only is not None and found.content_type not in only:
            raise GatehouseError(FAILED_PRECONDITION, "This document cannot be shown here.")
        held = await session.get(DocumentCustody, document_id)
        legacy = None
        if held is None:
            legacy = await session.scalar(
                select(Document.content).where(Document.id == document_id)
            )
    if held is not None and held.data_key_encrypted is not None:
        media_type = found.content_type
        body = await _opened(runtime, held)
    elif legacy is not None:
        media_type = sniff(legacy) or FALLBACK_MEDIA_TYPE
        body = _single(legacy)
    else:
        raise erased()
    async with runtime.db.write() as session:
        ctx = WriteContext.of(staff, request_id, runtime.now())
        ctx.audit(session, action, document_id, found.application_id, tenant_id=found.tenant_id)
    return Content(document_id, found.application_id, media_type, found.size_bytes, body)


async def _opened(runtime: Runtime, held: DocumentCustody) -> AsyncIterator[bytes]:
    """The stream of the document's bytes, once its first piece has opened."""
    try:
        chunks = original_bytes(runtime.db, runtime.crypto, held)
        first = await anext(chunks)
    except (UndecryptableError, SealBroken, ObjectMissing, OSError, StopAsyncIteration) as exc:
        log.error(
            "a document cannot be opened",
            extra={"document_id": held.document_id, "error": type(exc).__name__},
        )
        raise unreadable() from None
    return _with_first(first, chunks)
