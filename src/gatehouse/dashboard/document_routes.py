"""Documents on the dashboard (docs/documents.md §5): the inline view that the case page frames
(sandboxed), the download button and the thumbnails of images. All open the document through the
same service as the staff API, so each is audited (`document.view`, `document.thumbnail`)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import PlainTextResponse, Response

from gatehouse import documents
from gatehouse.dashboard.sessions import require_viewer
from gatehouse.documents import open_thumbnail
from gatehouse.errors import GatehouseError
from gatehouse.web.auth import runtime_of
from gatehouse.web.downloads import DOWNLOAD_POLICY, INLINE_POLICY, document_response
from gatehouse.web.errors import request_id_of

router = APIRouter(include_in_schema=False)


def _refused(error: GatehouseError) -> Response:
    """A refusal in plain words, under the frame's own policy."""
    return PlainTextResponse(
        error.message,
        status_code=error.status_code,
        headers={
            "Content-Security-Policy": INLINE_POLICY,
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-store",
        },
    )


async def _answer(request: Request, document_id: str, *, inline: bool) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    try:
        content = await documents.open_document(
            runtime_of(request), viewer.principal, request_id_of(request) or None, document_id
        )
    except GatehouseError as error:
        return _refused(error)  # shown inside the case page's frame
    return document_response(
        content.chunks, content.media_type, content.filename, content.size, inline=inline
    )


@router.get("/dashboard/documents/{document_id}/view")
async def view_document(request: Request, document_id: str) -> Response:
    """The bytes, `inline`, for the sandboxed frame of the case page."""
    return await _answer(request, document_id, inline=True)


@router.get("/dashboard/documents/{document_id}/download")
async def download_document(request: Request, document_id: str) -> Response:
    """The bytes as an attachment named `<documentId>.<ext>`."""
    return await _answer(request, document_id, inline=False)


@router.get("/dashboard/documents/{document_id}/thumbnail")
async def document_thumbnail(request: Request, document_id: str) -> Response:
    """A small PNG drawn afresh from an image document (documents/thumbnails.py)."""
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    try:
        thumbnail = await open_thumbnail(
            runtime_of(request), viewer.principal, request_id_of(request) or None, document_id
        )
    except GatehouseError as error:
        return _refused(error)
    return Response(
        thumbnail.png,
        media_type="image/png",
        headers={
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "private, no-store",
            "Content-Security-Policy": DOWNLOAD_POLICY,
            "Content-Disposition": f'inline; filename="{document_id}-thumbnail.png"',
            "Referrer-Policy": "no-referrer",
        },
    )
