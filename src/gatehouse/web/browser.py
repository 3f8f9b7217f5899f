"""What the browser surfaces (portal and dashboard) share: one origin rule, one cookie rule.

- Origin: an unsafe request (anything but GET and HEAD) is accepted only when its `Origin`
  header names PUBLIC_URL's origin or the request's own (scheme, host and port: the address
  the browser used, so `localhost` beside a PUBLIC_URL of `127.0.0.1` works; a page on another
  site cannot make a browser send a foreign `Origin` with our `Host`). Without `Origin`, its
  `Referer` must name such an origin instead (the pages' `Referrer-Policy: same-origin` keeps
  it on every same-origin request). Both absent, either naming another origin, or
  `Origin: null`: refused (docs/reference/portal.md §6, docs/case-work.md).
- Cookies: HttpOnly, scoped to the surface's path, `Secure` exactly when PUBLIC_URL is https
  (docs/reference/portal.md §3).
"""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

from fastapi import Request
from starlette.responses import Response

from gatehouse.errors import PERMISSION_DENIED, GatehouseError
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
    """True only when the request shows it came from PUBLIC_URL's origin or its own: by its
    `Origin` header, or, without one, by its `Referer`. A request that shows neither is
    refused."""
    headers = request.headers
    origin = headers.get("origin")
    if origin is None:
        origin = headers.get("referer")
        if origin is None:
            return False
    referer = headers.get("referer")
    expected = {origin_of(settings.base_url), origin_of(str(request.base_url))}
    expected.discard(None)
    if origin_of(origin) not in expected:
        return False
    # A Referer beside a matching Origin must not name another origin either.
    return referer is None or origin_of(referer) in expected


class CrossSiteRequest(GatehouseError):
    """403 permission-denied: the error body on JSON routes, the refusal page on pages
    (web/handlers.py)."""

    def __init__(self) -> None:
        super().__init__(PERMISSION_DENIED, "Cross-site requests are not accepted.")


def check_origin(request: Request, settings: Settings) -> None:
    """403 permission-denied for a cross-site unsafe request."""
    if request.method not in SAFE_METHODS and not same_origin(request, settings):
        raise CrossSiteRequest


def cookie_is_secure(settings: Settings) -> bool:
    """`Secure` only when PUBLIC_URL is https."""
    return settings.base_url.lower().startswith("https://")


HOST_PREFIX = "__Host-"


def cookie_name(settings: Settings, name: str) -> str:
    """Under https, `__Host-<name>`: the browser then keeps the cookie only if it is Secure,
    has Path=/ and no Domain, so no other host, subdomain or plain-http page can set or
    shadow it. Under http (development), `name` as it is (docs/portal-and-dashboard.md)."""
    return HOST_PREFIX + name if cookie_is_secure(settings) else name


def cookie_path(settings: Settings, path: str) -> str:
    """Under https `/` (the `__Host-` prefix demands it), else `path`."""
    return "/" if cookie_is_secure(settings) else path


def read_cookie(request: Request, settings: Settings, name: str) -> str | None:
    """The value of the cookie set as `name` (prefixed under https)."""
    return request.cookies.get(cookie_name(settings, name))


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
        cookie_name(settings, name),
        value,
        max_age=int(lifetime.total_seconds()),
        path=cookie_path(settings, path),
        secure=cookie_is_secure(settings),
        httponly=True,
        samesite=same_site,  # type: ignore[arg-type]
    )


def clear_session_cookie(
    response: Response, settings: Settings, *, name: str, path: str, same_site: str
) -> None:
    response.delete_cookie(
        cookie_name(settings, name),
        path=cookie_path(settings, path),
        secure=cookie_is_secure(settings),
        httponly=True,
        samesite=same_site,  # type: ignore[arg-type]
    )
