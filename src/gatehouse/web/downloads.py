"""Answering a stored document's bytes (docs/reference/staff-api.md §10.1, docs/documents.md §5).

The bytes are streamed as they are opened, never buffered whole. Every answer carries the media
type the content was recognised as, `X-Content-Type-Options: nosniff`, `Cache-Control:
no-store` and a Content-Security-Policy that runs nothing: a download (`attachment`, for the
staff API and the dashboard's download button) is sandboxed and framed by nobody; the inline
view of the dashboard is sandboxed too and may be framed by the dashboard alone.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.responses import StreamingResponse

DOWNLOAD_POLICY = "default-src 'none'; sandbox; frame-ancestors 'none'"
INLINE_POLICY = (
    "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox; frame-ancestors 'self'"
)


def document_response(
    chunks: AsyncIterator[bytes], media_type: str, filename: str, size: int, *, inline: bool
) -> StreamingResponse:
    disposition = "inline" if inline else "attachment"
    headers = {
        "Content-Disposition": f'{disposition}; filename="{filename}"',
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-store",
        "Content-Security-Policy": INLINE_POLICY if inline else DOWNLOAD_POLICY,
        "X-Frame-Options": "SAMEORIGIN" if inline else "DENY",
        "Referrer-Policy": "no-referrer",
        "Content-Length": str(size),
    }
    return StreamingResponse(chunks, media_type=media_type, headers=headers)
