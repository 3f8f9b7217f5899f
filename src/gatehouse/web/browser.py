"""What the browser surfaces (portal and dashboard) share: one origin rule, one cookie rule.

- Origin: an unsafe request (anything but GET and HEAD) that carries an `Origin` header is
  accepted only when that origin is PUBLIC_URL's or the request's own (scheme, host and
  port); `Origin: null` is refused. A request without `Origin` is left to the CSRF token
  (the dashboard) or the SameSite cookie (the portal).
- Cookies: HttpOnly, scoped to the surface's path, `Secure` exactly when PUBLIC_URL is https
  (docs/reference/portal.md §3).
"""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

from fastapi import Request
from starlette.responses import Response

from gatehouse.errors import permission_denied
from gatehouse.settings import Settings

SAFE_METHODS = frozenset({"GET", "HEAD"})


def origin_of(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of a URL, or None when it names no origin (an `Origin` or
    `Referer` header is the client's text: `http://[::1` makes `urlsplit` raise)."""
    try:
        parts = urlsplit(url)
        if not parts.scheme or not parts.hostname:
            return None
        scheme = parts.scheme.lower()
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        return None
    return scheme, parts.hostname.lower(), port


def same_origin(request: Request, settings: Settings) -> bool:
    """False when the browser says the request came from another site."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    claimed = origin_of(origin)
    if claimed is None:
        return False
    return claimed in (origin_of(settings.base_url), origin_of(str(request.base_url)))


def check_origin(request: Request, settings: Settings) -> None:
    """403 permission-denied for a cross-site unsafe request."""
    if request.method not in SAFE_METHODS and not same_origin(request, settings):
        raise permission_denied("Cross-site requests are not accepted.")


def cookie_is_secure(settings: Settings) -> bool:
    """`Secure` only when PUBLIC_URL is https."""
    return settings.base_url.lower().startswith("https://")


def set_session_cookie(
    response: Response,
    settings: Settings,
    *,
    name: str,
    value: str,
    path: str,
    lifetime: timedelta,
    same_site: str,
) -> None:
    response.set_cookie(
        name,
        value,
        max_age=int(lifetime.total_seconds()),
        path=path,
        secure=cookie_is_secure(settings),
        httponly=True,
        samesite=same_site,  # type: ignore[arg-type]
    )


def clear_session_cookie(
    response: Response, settings: Settings, *, name: str, path: str, same_site: str
) -> None:
    response.delete_cookie(
        name,
        path=path,
        secure=cookie_is_secure(settings),
        httponly=True,
        samesite=same_site,  # type: ignore[arg-type]
    )
