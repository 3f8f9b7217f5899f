"""Reading console pages in tests."""

from __future__ import annotations

import re

import httpx

SECRET_RE = re.compile(r'id="new-secret">(whsec_[A-Za-z0-9_\-]+)<')
FIELD_ERROR_RE = re.compile(r'id="f-([a-z]+)-error">([^<]+)<')


def shown_secret(page: httpx.Response) -> str | None:
    match = SECRET_RE.search(page.text)
    return match.group(1) if match else None


def field_errors(page: httpx.Response) -> dict[str, str]:
    return dict(FIELD_ERROR_RE.findall(page.text))


def endpoint_id_of(answer: httpx.Response) -> str:
    assert answer.status_code == 303, answer.text
    location = answer.headers["location"]
    assert location.startswith("/console/webhooks/we_"), location
    return location.rsplit("/", 1)[1]
