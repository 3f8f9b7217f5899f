"""The verification interface, `{verify_api_url}` = PUBLIC_URL + `/verify` (spec 3 §4; CONTRACT §3).

Its own credentials only: a client's uuid and secret (in the body for the
registration, HTTP Basic for retrieval). API keys and staff tokens mean
nothing here, and client credentials mean nothing on `/v1` or `/staff/v1`.
Every answer of this interface, errors included, is `{"message": ...}`
(except the retrieved customer), built here rather than by the app's
exception handlers, which speak the tenant error body.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import orjson
from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.http.auth import runtime_of
from gatehouse.http.errors import request_id_of
from gatehouse.http.responses import JSONResponse
from gatehouse.verification import clients, customers

router = APIRouter(prefix="/verify", tags=["verification"])

REGISTER_PATH = "/clients/setWebhook/clientAuth"
REGISTRATION_FIELDS = ("clientUuid", "clientSecret", "callbackUrl", "callbackPassphrase")
BASIC_CHALLENGE = {"WWW-Authenticate": 'Basic realm="verify", charset="UTF-8"'}

_REGISTRATION_SCHEMA: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": list(REGISTRATION_FIELDS),
                    "properties": {
                        "clientUuid": {"type": "string"},
                        "clientSecret": {"type": "string"},
                        "callbackUrl": {"type": "string", "format": "uri"},
                        "callbackPassphrase": {"type": "string", "minLength": 6},
                    },
                }
            }
        },
    }
}


def message(status_code: int, text: str, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse({"message": text}, status_code=status_code, headers=headers)


def _registration_input(raw: bytes) -> clients.RegistrationInput | str:
    """The four string fields of spec 3 §4, or why the body is not acceptable."""
    try:
        data = orjson.loads(raw) if raw.strip() else None
    except orjson.JSONDecodeError:
        return "The body is not valid JSON."
    if not isinstance(data, dict):
        return "The body must be a JSON object."
    for name in REGISTRATION_FIELDS:
        value = data.get(name)
        if value is None:
            return f"{name} is required."
        if not isinstance(value, str):
            return f"{name} must be a string."
        if not value.strip():
            return f"{name} must not be empty."
    return clients.RegistrationInput(
        client_uuid=data["clientUuid"].strip(),
        client_secret=data["clientSecret"],
        callback_url=data["callbackUrl"].strip(),
        callback_passphrase=data["callbackPassphrase"],
    )


@router.post(REGISTER_PATH, openapi_extra=_REGISTRATION_SCHEMA)
async def set_webhook(request: Request) -> Response:
    """Register or replace the client's callback (spec 3 §4): 200 `{"message"}`."""
    parsed = _registration_input(await request.body())
    if isinstance(parsed, str):
        return message(400, parsed)
    runtime = runtime_of(request)
    async with runtime.db.write() as session:
        client = await clients.authenticate_client(
            session, runtime, parsed.client_uuid, parsed.client_secret
        )
        if client is None:
            return message(401, "Invalid clientUuid or clientSecret.")
        try:
            await clients.register_callback(
                session, runtime, client, parsed, request_id=request_id_of(request)
            )
        except clients.CallbackRegistrationError as exc:
            return message(400, str(exc))
    return message(200, "Callback registered.")


@router.api_route(REGISTER_PATH, methods=["GET", "PUT", "PATCH", "DELETE"], include_in_schema=False)
async def set_webhook_wrong_method(request: Request) -> Response:
    return message(405, "Method not allowed; use POST.", {"Allow": "POST"})


def _basic_credentials(request: Request) -> tuple[str, str] | None:
    header = request.headers.get("authorization", "")
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic" or not encoded.strip():
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    client_uuid, colon, secret = decoded.partition(":")
    if not colon or not client_uuid or not secret:
        return None
    return client_uuid, secret


RETRIEVE_PATH = "/clients/customers/{customer_uuid}"


@router.get(RETRIEVE_PATH)
async def retrieve_customer(request: Request, customer_uuid: str) -> Response:
    """Result retrieval (CONTRACT §3): HTTP Basic `clientUuid:clientSecret`.

    401 for missing or wrong credentials; 404 for an unknown customer or one
    that belongs to another client (the same answer, so it tells nothing).
    """
    credentials = _basic_credentials(request)
    if credentials is None:
        return message(
            401, "Use HTTP Basic authentication with clientUuid:clientSecret.", BASIC_CHALLENGE
        )
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        client = await clients.authenticate_client(session, runtime, *credentials)
        if client is None:
            return message(401, "Invalid clientUuid or clientSecret.", BASIC_CHALLENGE)
        found = await customers.customer_for_client(session, client.uuid, customer_uuid)
    if found is None:
        return message(404, "No such customer.")
    return JSONResponse(found)


@router.api_route(
    RETRIEVE_PATH, methods=["POST", "PUT", "PATCH", "DELETE"], include_in_schema=False
)
async def retrieve_customer_wrong_method(request: Request, customer_uuid: str) -> Response:
    return message(405, "Method not allowed; use GET.", {"Allow": "GET"})


@router.api_route(
    "/{rest:path}",
    methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    include_in_schema=False,
)
async def unknown_verify_route(request: Request, rest: str) -> Response:
    """Keep `{"message"}` answers across the whole interface, unknown paths included."""
    return message(404, "No such route.")
