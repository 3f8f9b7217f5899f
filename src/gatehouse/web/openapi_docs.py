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
}


def assets_directory() -> Path:
    """Swagger UI's files as the fastapi-offline package ships them (no CDN)."""
    import fastapi_offline

    return Path(fastapi_offline.__file__).resolve().parent / "static"


_ASSET_CACHE: dict[str, bytes] = {}


def docs_asset(name: str) -> bytes | None:
    """One of `DOCS_ASSETS`, read once per process; None for any other name."""
    if name not in DOCS_ASSETS:
        return None
    content = _ASSET_CACHE.get(name)
    if content is None:
        content = _ASSET_CACHE[name] = (assets_directory() / name).read_bytes()
    return content


def docs_page(openapi_url: str = "/openapi.json") -> HTMLResponse:
    """Swagger UI on the app's own assets; Authorize keeps the credentials across reloads."""
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
