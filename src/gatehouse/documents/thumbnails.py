"""Thumbnails of image documents for the case page (docs/documents.md §5, "Thumbnails").

A thumbnail is opened exactly as a reviewer's view is (`review.open_document`: the same
access rule, the sealed bytes opened through custody, audited, as `document.thumbnail`), then
decoded with Pillow and drawn again as a small PNG: what the browser receives is a fresh
image Gatehouse made, never the applicant's bytes, so nothing in the original (metadata, a
polyglot payload) reaches the page. Only the image kinds the upload sniffing accepts are
drawn; a PDF, an erased document or an image Pillow cannot read gets no thumbnail.
"""

from __future__ import annotations

import asyncio
import io
import warnings
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from gatehouse.audit.context import Acting
from gatehouse.documents import review
from gatehouse.domain.media import THUMBNAIL_MEDIA_TYPES
from gatehouse.errors import FAILED_PRECONDITION, GatehouseError
from gatehouse.runtime import Runtime

THUMBNAIL_FORMATS = ("PNG", "JPEG", "WEBP")
# The longest side of a thumbnail, in pixels (twice the page's 80 px box, for sharp screens).
THUMBNAIL_SIDE = 160
# An image larger than this many pixels is not decoded (a decompression bomb stays closed).
MAX_PIXELS = 40_000_000


@dataclass(frozen=True, slots=True)
class Thumbnail:
    document_id: str
    png: bytes


def not_drawable() -> GatehouseError:
    return GatehouseError(FAILED_PRECONDITION, "This document has no thumbnail.")


def draw(data: bytes, side: int = THUMBNAIL_SIDE) -> bytes:
    """A PNG at most `side` pixels on its longest side, drawn from an image's bytes; the
    not-drawable refusal for anything Pillow cannot read as PNG, JPEG or WebP, or too large."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=THUMBNAIL_FORMATS) as image:
                width, height = image.size
                if width * height > MAX_PIXELS:
                    raise not_drawable()
                image.draft("RGB", (side, side))  # JPEG decodes at a reduced scale
                small = image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB")
                small.thumbnail((side, side))
                out = io.BytesIO()
                small.save(out, format="PNG", optimize=True)
    except (
        UnidentifiedImageError,
        OSError,
        ValueError,
        Image.DecompressionBombError,
        Image.DecompressionBombWarning,
    ):
        raise not_drawable() from None
    return out.getvalue()


async def open_thumbnail(
    runtime: Runtime, staff: Acting, request_id: str | None, document_id: str
) -> Thumbnail:
    """The thumbnail of an image document; refusals as `review.open_document`'s, and
    failed-precondition for a document that is not an image."""
    content = await review.open_document(
        runtime,
        staff,
        request_id,
        document_id,
        action="document.thumbnail",
        only=THUMBNAIL_MEDIA_TYPES,
    )
    if content.media_type not in THUMBNAIL_MEDIA_TYPES:
        raise not_drawable()
    data = b"".join([chunk async for chunk in content.chunks])
    png = await asyncio.to_thread(draw, data)
    return Thumbnail(document_id, png)
