"""Applicant document uploads (CONTRACT §5; spec 1 §4.14): the size limit
(`settings.upload_max_bytes`), the content-type allow-list, and storage in the
`documents.content` column. The tenant API shows metadata only.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import audit
from gatehouse.domain.status import InvalidInput
from gatehouse.http.errors import PAYLOAD_TOO_LARGE, ApiError, permission_denied
from gatehouse.ids import new_id
from gatehouse.services import applications_repo as repo
from gatehouse.services.application_reads import document_view
from gatehouse.services.case_access import rule_error
from gatehouse.services.portal_sessions import PortalContext
from gatehouse.storage.tables.applications import Document

ALLOWED_CONTENT_TYPES = frozenset({"application/pdf", "image/png", "image/jpeg", "image/webp"})
MAX_TYPE = 80
MAX_FILENAME = 255


def too_large(limit: int) -> ApiError:
    return ApiError(
        PAYLOAD_TOO_LARGE,
        f"The file is larger than {limit} bytes.",
        details=[{"field": "file", "issue": "too large"}],
    )


def check_upload(
    document_type: object, content_type: str | None, size: int, limit: int
) -> tuple[str, str]:
    """The cleaned (type, content type) of an upload, or the error it gets."""
    if not isinstance(document_type, str) or not document_type.strip():
        raise rule_error(InvalidInput("type is required.", field="type"))
    cleaned_type = document_type.strip()
    if len(cleaned_type) > MAX_TYPE:
        raise rule_error(InvalidInput(f"type is at most {MAX_TYPE} characters.", field="type"))
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media not in ALLOWED_CONTENT_TYPES:
        raise rule_error(
            InvalidInput("The file must be a PDF, PNG, JPEG or WebP document.", field="file")
        )
    if size > limit:
        raise too_large(limit)
    if size == 0:
        raise rule_error(InvalidInput("The file is empty.", field="file"))
    return cleaned_type, media


async def store_document(
    session: AsyncSession,
    context: PortalContext,
    *,
    document_type: str,
    content_type: str,
    filename: str | None,
    content: bytes,
    at: datetime,
    request_id: str | None,
) -> dict[str, Any]:
    """Store one upload; returns its metadata (`documentId, type, status, …`)."""
    application = await repo.application_by_id(session, context.application_id, for_update=True)
    if application is None or application.erased_at is not None or application.locked:
        raise permission_denied("Access to this application is not available.")
    document = Document(
        id=new_id("doc"),
        application_id=application.id,
        type=document_type,
        status="uploaded",
        content_type=content_type,
        size_bytes=len(content),
        filename=(filename or None) and filename[-MAX_FILENAME:],
        content=content,
        uploaded_by=context.member_id,
        uploaded_at=at,
    )
    session.add(document)
    application.updated_at = at
    audit.record(
        session,
        at=at,
        actor=context.actor,
        action="document.upload",
        target=document.id,
        tenant_id=application.tenant_id,
        application_id=application.id,
        request_id=request_id,
    )
    await session.flush()
    return document_view(document)
