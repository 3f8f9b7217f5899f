"""The tenant console's two `/v1` routes: minting a console link and the event catalogue
(docs/reference/tenant-api.md §5.16, §5.17; docs/console.md)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict
from starlette.responses import Response

from gatehouse.api.examples import WEBHOOKS
from gatehouse.consoles import service as consoles
from gatehouse.consoles.schemas import ConsoleLinkView
from gatehouse.web.body import parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import AnyTenantKey, ManageWebhooks, RuntimeDep
from gatehouse.web.openapi import Op
from gatehouse.web.responses import json_response, respond
from gatehouse.webhooks.catalogue import EventTypeList, catalogue

router = APIRouter()


class ConsoleSessionBody(BaseModel):
    """`POST /v1/console-sessions` takes an empty object (or no body)."""

    model_config = ConfigDict(extra="ignore")


@router.post("/v1/console-sessions", tags=["console"])
@Op(
    "createConsoleSession",
    "Mint a single-use link to the tenant console (valid 10 minutes)",
    {201: ConsoleLinkView},
    access=WEBHOOKS,
    description="The console session the link opens acts as this API key: its tenant, its "
    "scopes, ended when the key is revoked (docs/console.md).",
    answer_example={
        "url": "https://onboarding.example.com/console/start/Xq3…",
        "expiresAt": "2026-11-22T10:10:00.000Z",
    },
)
async def create_console_session(
    request: Request, principal: ManageWebhooks, runtime: RuntimeDep
) -> Response:
    """201 `{url, expiresAt}`: a single-use console link, valid 10 minutes. The body, when
    sent, is an empty JSON object (like a secret rotation's, it is not described)."""
    await parse_body(request, ConsoleSessionBody)
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        view = consoles.create_link(session, runtime, ctx, principal)
        return await respond(request, session, 201, view)


@router.get("/v1/event-types", tags=["webhooks"])
@Op(
    "listEventTypes",
    "List the webhook event catalogue with a JSON Schema and an example of each type",
    {200: EventTypeList},
    description="Any API key may read it, whatever its scopes.",
    # An empty list: a catalogue entry (`type` beside `example`) reads as a schema to
    # Spectral's example rule (docs/api-reference.md, "Linters and generators").
    answer_example={"data": []},
)
async def list_event_types(principal: AnyTenantKey) -> Response:
    """200 `{data: [{type, description, schema, example}]}`, any scope."""
    return json_response(200, catalogue())
