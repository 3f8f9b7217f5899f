"""Which documents the case page can show (docs/documents.md §5): inline in its sandboxed
frame (images and PDFs) and as a thumbnail (images only, drawn by documents/thumbnails.py)."""

from __future__ import annotations

INLINE_MEDIA_TYPES = frozenset({"application/pdf", "image/png", "image/jpeg", "image/webp"})
THUMBNAIL_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/webp"})
