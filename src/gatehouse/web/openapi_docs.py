"""The offline docs page at /docs: Swagger UI on the app's own packaged assets, no CDN
(docs/api-reference.md)."""

from __future__ import annotations

from pathlib import Path

from fastapi.openapi.docs import get_swagger_ui_html
from starlette.responses import HTMLResponse

DOCS_ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon.png": "image/png",
    # Gatehouse's own, from its static files: what Swagger UI lacks for accessibility.
    "docs.js": "text/javascript; charset=utf-8",
    "docs.css": "text/css; charset=utf-8",
}
OWN_ASSETS = frozenset({"docs.js", "docs.css"})


def assets_directory() -> Path:
    """Swagger UI's files as the fastapi-offline package ships them (no CDN)."""
    import fastapi_offline

    return Path(fastapi_offline.__file__).resolve().parent / "static"


STATIC = Path(__file__).resolve().parents[1] / "static"
_ASSET_CACHE: dict[str, bytes] = {}


def docs_asset(name: str) -> bytes | None:
    """One of `DOCS_ASSETS`, read once per process; None for any other name."""
    if name not in DOCS_ASSETS:
        return None
    content = _ASSET_CACHE.get(name)
    if content is None:
        folder = STATIC if name in OWN_ASSETS else assets_directory()
        content = _ASSET_CACHE[name] = (folder / name).read_bytes()
    return content


def docs_page(openapi_url: str = "/openapi.json") -> HTMLResponse:
    """Swagger UI on the app's own assets; Authorize keeps the credentials across reloads.
    The page has a language and a main landmark, and `docs.css` and `docs.js` add what
    Swagger UI's markup lacks for accessibility (docs/api-reference.md §2)."""
    page = _swagger_page(openapi_url)
    html = bytes(page.body).decode()
    for old, new in (
        ("<html>", '<html lang="en">'),
        ('<div id="swagger-ui">\n    </div>', '<main><div id="swagger-ui"></div></main>'),
        ("</head>", '<link rel="stylesheet" href="/docs/assets/docs.css">\n</head>'),
        ("</body>", '<script src="/docs/assets/docs.js"></script>\n</body>'),
    ):
        if old not in html:
            raise RuntimeError(f"Swagger UI's page changed: {old!r} is not in it")
        html = html.replace(old, new, 1)
    return HTMLResponse(html)


def _swagger_page(openapi_url: str) -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url=openapi_url,
        title="Gatehouse API",
        swagger_js_url="/docs/assets/swagger-ui-bundle.js",
        swagger_css_url="/docs/assets/swagger-ui.css",
        swagger_favicon_url="/docs/assets/favicon.png",
        swagger_ui_parameters={
            "dom_id": "#swagger-ui",
            "layout": "BaseLayout",
            "deepLinking": True,
            "persistAuthorization": True,
            "displayOperationId": True,
            "validatorUrl": None,
        },
    )
