"""The tenant console's two `/v1` routes: minting a console link and the event catalogue
(docs/reference/tenant-api.md §5.16, §5.17; docs/console.md)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict
from starlette.responses import Response

from gatehouse import consoles
from gatehouse.web.body import parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import AnyTenantKey, ManageWebhooks, RuntimeDep
from gatehouse.web.responses import json_response, respond
from gatehouse.webhooks import catalogue

router = APIRouter()


class ConsoleSessionBody(BaseModel):
    """`POST /v1/console-sessions` takes an empty object (or no body)."""

    model_config = ConfigDict(extra="ignore")


@router.post("/v1/console-sessions", tags=["console"])
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
async def list_event_types(principal: AnyTenantKey) -> Response:
    """200 `{data: [{type, description, schema, example}]}`, any scope."""
    return json_response(200, catalogue())
