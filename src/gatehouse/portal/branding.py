"""The tenant's colours and logo as the portal serves them (docs/reference/portal.md,
"Branding").

`GET /portal/theme/{rrggbb}.css` is a few CSS variables made from an accent colour (the
pages' Content-Security-Policy allows no inline style); `GET /portal/logos/{digest}.{ext}`
is a tenant's logo, addressed by the SHA-256 of its bytes. Both never change at their
address, so browsers may keep them a year; the logo is sent with its sniffed type and
`nosniff`. Neither needs a session: the sign-in page shows them too.
"""

from __future__ import annotations

import re

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.accounts import logo_by_digest
from gatehouse.documents import EXTENSIONS
from gatehouse.domain.branding import palette
from gatehouse.errors import not_found
from gatehouse.web.auth import runtime_of

router = APIRouter(include_in_schema=False)

FOREVER = "public, max-age=31536000, immutable"
_ACCENT = re.compile(r"[0-9a-f]{6}")
_DIGEST = re.compile(r"[0-9a-f]{64}")


@router.get("/portal/theme/{accent}.css")
async def theme(accent: str) -> Response:
    if not _ACCENT.fullmatch(accent):
        raise not_found("No such theme.")
    colours = palette("#" + accent)
    css = (
        f":root{{--accent:{colours.accent};--accent-ink:{colours.accent_ink};"
        f"--brand:{colours.link};--brand-ink:#ffffff}}\n"
    )
    return Response(
        css,
        media_type="text/css",
        headers={"Cache-Control": FOREVER, "X-Content-Type-Options": "nosniff"},
    )


@router.get("/portal/logos/{name}")
async def logo(request: Request, name: str) -> Response:
    digest, _, extension = name.partition(".")
    found = None
    if _DIGEST.fullmatch(digest):
        found = await logo_by_digest(runtime_of(request), digest)
    if found is None or EXTENSIONS.get(found[1]) != extension:
        raise not_found("No such logo.")
    content, media_type = found
    return Response(
        content,
        media_type=media_type,
        headers={
            "Cache-Control": FOREVER,
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'",
            "ETag": f'"{digest}"',
        },
    )
