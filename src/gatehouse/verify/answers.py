"""The verification interface's answers and its HTTP Basic credentials
(docs/reference/verification.md §4.2, §4.3): every answer is `{"message": ...}`, except a
customer."""

from __future__ import annotations

import base64

from fastapi import Request
from starlette.responses import Response

from gatehouse.web.responses import JSONResponse
from gatehouse.web.text import TextProblem, refused_char

BASIC_CHALLENGE = {"WWW-Authenticate": 'Basic realm="verify", charset="UTF-8"'}


def message(status_code: int, text: str, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse({"message": text}, status_code=status_code, headers=headers)


def bad_credentials() -> Response:
    """401 for a clientUuid or clientSecret that does not match."""
    return message(401, "Invalid clientUuid or clientSecret.", BASIC_CHALLENGE)


def basic_credentials(request: Request) -> tuple[str, str] | Response:
    """The decoded `clientUuid:clientSecret`, or the answer to give instead: 401 when they
    are absent or not of that shape, 400 when they carry a character the text rule refuses
    (web/text.py)."""
    missing = message(
        401, "Use HTTP Basic authentication with clientUuid:clientSecret.", BASIC_CHALLENGE
    )
    header = request.headers.get("authorization", "")
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic" or not encoded.strip():
        return missing
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except ValueError:  # binascii.Error, UnicodeDecodeError, and text that is not ASCII
        return missing
    char = refused_char(decoded)
    if char is not None:
        return message(400, TextProblem("Authorization", char).message)
    client_uuid, colon, secret = decoded.partition(":")
    if not colon or not client_uuid or not secret:
        return missing
    return client_uuid, secret
