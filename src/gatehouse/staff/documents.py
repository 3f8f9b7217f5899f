"""Staff reading a document's original bytes (docs/reference/staff-api.md §10)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.documents import review
from gatehouse.domain.principals import Role
from gatehouse.staff.examples import ANALYST
from gatehouse.web.auth import require_role
from gatehouse.web.dependencies import RuntimeDep, StaffUser
from gatehouse.web.downloads import document_response
from gatehouse.web.errors import request_id_of
from gatehouse.web.openapi import BINARY, Op

router = APIRouter(prefix="/staff/v1", tags=["staff: documents"])


@router.get(
    "/documents/{document_id}/content",
    response_class=Response,
    responses={200: {"description": "The original bytes, as an attachment."}},
)
@Op(
    "getDocumentContent",
    "Download a document's original bytes (audited)",
    {200: BINARY},
    access=ANALYST,
    errors=(410,),
)
async def document_content(
    document_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """The document's original bytes (analyst+); audited as `document.view`; erased is 410."""
    require_role(staff, Role.ANALYST)
    content = await review.open_document(
        runtime, staff, request_id_of(request) or None, document_id
    )
    return document_response(
        content.chunks, content.media_type, content.filename, content.size, inline=False
    )
