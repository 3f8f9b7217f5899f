"""Receiving an applicant's upload (docs/reference/portal.md §7.7, docs/documents.md).

In order, and nothing is stored unless every step passes:

1. the form: `type` present and short, a declared type among PDF, PNG, JPEG and WebP, a file
   neither empty nor larger than UPLOAD_MAX_BYTES;
2. the content: its magic bytes name the declared type (`documents/sniff.py`);
3. the scanner, when GATEHOUSE_CLAMD_ADDRESS is set (`documents/scan.py`);
4. the store: the file is sealed under a fresh data key and put in GATEHOUSE_DOCUMENT_STORE;
5. one transaction records the document, its custody row and the audit entry; if it fails,
   the object just stored is removed again.

The file arrives spooled by the form parser (on disk past 1 MiB) and is read in segments from
there on: no step holds a whole upload in memory.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import BinaryIO

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import applications
from gatehouse.applicants import PortalContext
from gatehouse.applications import Document as DocumentView
from gatehouse.applications import document_view
from gatehouse.audit.context import WriteContext
from gatehouse.documents import custody
from gatehouse.documents.scan import parse_address, scan, scanner_unavailable
from gatehouse.documents.sniff import ALLOWED_MEDIA_TYPES, HEAD_BYTES, normalized, sniff
from gatehouse.documents.stores import open_store
from gatehouse.errors import PAYLOAD_TOO_LARGE, GatehouseError, invalid_argument, permission_denied
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.follow_ups import APPLICATION_FACTS
from gatehouse.storage.tables.applications import Document

log = logging.getLogger("gatehouse.documents")

MAX_TYPE = 80
MAX_FILENAME = 255
KINDS = "a PDF, PNG, JPEG or WebP document"


@dataclass(frozen=True, slots=True)
class Upload:
    """What the form carried: the raw `type` value and the spooled `file` part."""

    document_type: object
    declared_type: str | None
    filename: str | None
    file: BinaryIO


@dataclass(frozen=True, slots=True)
class Checked:
    document_type: str
    media_type: str
    size: int


def too_large(limit: int) -> GatehouseError:
    return GatehouseError(
        PAYLOAD_TOO_LARGE,
        f"The file is larger than {limit} bytes.",
        details=[{"field": "file", "issue": "too large"}],
    )


def size_of(file: BinaryIO) -> int:
    file.seek(0, 2)
    size = file.tell()
    file.seek(0)
    return size


def check_upload(upload: Upload, limit: int) -> Checked:
    """The cleaned type, sniffed media type and size of an upload, or the error it gets."""
    document_type = upload.document_type
    if not isinstance(document_type, str) or not document_type.strip():
        raise invalid_argument("type is required.", "type", "missing")
    cleaned = document_type.strip()
    if len(cleaned) > MAX_TYPE:
        raise invalid_argument(f"type is at most {MAX_TYPE} characters.", "type", "too long")
    declared = normalized(upload.declared_type)
    if declared not in ALLOWED_MEDIA_TYPES:
        raise invalid_argument(f"The file must be {KINDS}.", "file", "type not accepted")
    size = size_of(upload.file)
    if size > limit:
        raise too_large(limit)
    if size == 0:
        raise invalid_argument("The file is empty.", "file", "empty")
    head = upload.file.read(HEAD_BYTES)
    upload.file.seek(0)
    sniffed = sniff(head)
    if sniffed is None:
        raise invalid_argument(
            f"The file's content is not {KINDS}.", "file", "content not recognised"
        )
    if sniffed != declared:
        raise invalid_argument(
            f"The file's content is {sniffed}, not the {declared} it was sent as.",
            "file",
            "content does not match the declared type",
        )
    return Checked(cleaned, sniffed, size)


async def receive_upload(
    runtime: Runtime, user: PortalContext, request_id: str | None, upload: Upload
) -> DocumentView:
    """Check, scan, seal, store and record one upload; returns its metadata."""
    checked = check_upload(upload, runtime.settings.upload_max_bytes)
    if runtime.settings.clamd_address:
        try:
            address = parse_address(runtime.settings.clamd_address)
        except ValueError:
            log.error("GATEHOUSE_CLAMD_ADDRESS is not host:port or a socket path")
            raise scanner_unavailable() from None
        await scan(address, upload.file)
    document_id = new_id("doc")
    store = open_store(runtime.settings.document_store, runtime.db)
    made = await custody.deposit(store, runtime.crypto, document_id, upload.file)
    try:
        async with runtime.db.write() as session:
            ctx = WriteContext.of(user, request_id, runtime.now())
            return await record_upload(session, ctx, user, document_id, checked, upload, made)
    except BaseException:
        await custody.forget_deposit(store, made)
        raise


async def record_upload(
    session: AsyncSession,
    ctx: WriteContext,
    user: PortalContext,
    document_id: str,
    checked: Checked,
    upload: Upload,
    made: custody.Deposit,
) -> DocumentView:
    application = await applications.application_by_id(
        session, user.application_id, for_update=True
    )
    if application is None or application.erased_at is not None or application.locked:
        raise permission_denied("Access to this application is not available.")
    filename = upload.filename
    document = Document(
        id=document_id,
        application_id=application.id,
        type=checked.document_type,
        status="uploaded",
        content_type=checked.media_type,
        size_bytes=checked.size,
        filename=filename[-MAX_FILENAME:] if filename else None,
        content=None,
        uploaded_by=user.member_id,
        uploaded_at=ctx.now,
    )
    session.add(document)
    await session.flush()
    session.add(made.custody_row(document_id, ctx.now))
    application.updated_at = ctx.now
    APPLICATION_FACTS.mark(session, application.id)  # its checklist's document items
    ctx.audit(
        session, "document.upload", document.id, application.id, tenant_id=application.tenant_id
    )
    await session.flush()
    return document_view(document)
