"""What an upload really is, from its first bytes (docs/documents.md, "Honest uploads").

The magic numbers come from `puremagic`; Gatehouse accepts four kinds of content and names
each by one media type and one file extension. A declared type that disagrees with the
content is refused by the caller.
"""

from __future__ import annotations

import puremagic

# The accepted media types and the extension a download is named with.
EXTENSIONS: dict[str, str] = {
    "application/pdf": "pdf",
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/webp": "webp",
}
ALLOWED_MEDIA_TYPES = frozenset(EXTENSIONS)
# Enough of the head of a file for every signature of the accepted kinds.
HEAD_BYTES = 4096


def sniff(head: bytes) -> str | None:
    """The accepted media type these first bytes begin, or None (unknown or not accepted).

    Among the signatures that match with the highest confidence, exactly one accepted type
    must be named; a file that looks like nothing, or like something else, is None.
    """
    if not head:
        return None
    try:
        matches = puremagic.magic_string(head[:HEAD_BYTES])
    except (puremagic.PureError, ValueError):
        return None
    if not matches:
        return None
    best = max(match.confidence for match in matches)
    named = {str(match.mime_type) for match in matches if match.confidence == best}
    accepted = named & ALLOWED_MEDIA_TYPES
    if len(accepted) != 1:
        return None
    return next(iter(accepted))


def normalized(declared: str | None) -> str:
    """The bare, lower-case media type of a declared type (`image/PNG; q=1` → `image/png`)."""
    return (declared or "").split(";", 1)[0].strip().lower()
