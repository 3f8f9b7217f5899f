"""Helpers for page tests over the ASGI client: sign-in and CSRF tokens."""

from __future__ import annotations

import re

import httpx

CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_of(html: str) -> str:
    match = CSRF_RE.search(html)
    assert match, "page has no CSRF token"
    return match.group(1)


async def dashboard_sign_in(client: httpx.AsyncClient, token: str) -> str:
    """Sign in to the dashboard; returns the session's CSRF token."""
    response = await client.post("/dashboard/sign-in", data={"token": token, "next": "/dashboard"})
    assert response.status_code == 303, response.text
    page = await client.get("/dashboard")
    assert page.status_code == 200
    return csrf_of(page.text)
