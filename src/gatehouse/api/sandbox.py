"""`POST /v1/sandbox/applications/{clientId}/simulate`, sandbox tenants only (docs/sandbox.md).

Order of checks (docs/reference/tenant-api.md §4.1, with the sandbox rule in it):

1. routing knows the path, like every documented route: a method other than POST is 405
   with `Allow: POST`, and a POST without a valid API key is 401;
2. an API key of a tenant that is not a sandbox one gets, for every method, the answer of a
   path no route has: 404 not-found "No such route.", with no rate-limit headers and without
   counting against the key's limit, so its answers are those of an unknown path;
3. for a sandbox tenant: the per-key limit, the scope applications:write, the
   Idempotency-Key, the body, then the step.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, StrictStr
from starlette.exceptions import HTTPException
from starlette.responses import Response

from gatehouse.api.examples import WRITE
from gatehouse.applications.examples import APPLICATION_EXAMPLE
from gatehouse.applications.schemas import Application
from gatehouse.domain.principals import SCOPE_WRITE, TenantPrincipal
from gatehouse.domain.sandbox import SIMULATE_ACTIONS
from gatehouse.errors import METHOD_NOT_ALLOWED, GatehouseError
from gatehouse.sandbox import service as sandbox
from gatehouse.sandbox.queries import is_sandbox_tenant
from gatehouse.web import idempotency
from gatehouse.web.auth import admit_tenant, authenticate_tenant, runtime_of
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep
from gatehouse.web.errors import error_response
from gatehouse.web.openapi import Op
from gatehouse.web.responses import respond

router = APIRouter(tags=["sandbox"])

SIMULATE_PATH = "/v1/sandbox/applications/{client_id}/simulate"
OTHER_METHODS = ["GET", "HEAD", "PUT", "PATCH", "DELETE"]


class SimulatedItem(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    type: StrictStr
    prompt: StrictStr


class SimulateBody(BaseModel):
    """`{action, comment?, rejectionReason?, items?}`; `items` only for request_info."""

    model_config = ConfigDict(strict=True, extra="ignore")
    action: StrictStr
    comment: StrictStr | None = None
    rejectionReason: StrictStr | None = None
    items: list[SimulatedItem] | None = None


async def _unless_sandbox(request: Request, principal: TenantPrincipal) -> None:
    """The answer of an unknown path (web/handlers.py) for a tenant that is not a sandbox one."""
    if not await is_sandbox_tenant(runtime_of(request), principal.tenant_id):
        raise HTTPException(status_code=404)


async def sandbox_writer(request: Request) -> TenantPrincipal:
    """Authenticate (401), the sandbox rule (404), per-key limit (429), scope (403), then
    claim any Idempotency-Key."""
    principal = await authenticate_tenant(request)
    await _unless_sandbox(request, principal)
    principal = await admit_tenant(request, principal, SCOPE_WRITE)
    await idempotency.begin(request, principal.tenant_id)
    return principal


SandboxWriter = Annotated[TenantPrincipal, Depends(sandbox_writer)]


@router.post(SIMULATE_PATH, openapi_extra=body_schema(SimulateBody))
@Op(
    "simulateApplicationStep",
    "Sandbox tenants: simulate an applicant or staff step",
    {200: Application},
    access=WRITE,
    errors=(410,),
    body_fields={"action": {"type": "string", "enum": list(SIMULATE_ACTIONS)}},
    description="Answers 404 (as for an unknown path) to a tenant that is not a sandbox "
    "one (docs/sandbox.md).",
    example={"action": "approve", "comment": "Simulated approval."},
    answer_example=APPLICATION_EXAMPLE,
)
async def post_simulate(
    client_id: str, request: Request, principal: SandboxWriter, runtime: RuntimeDep
) -> Response:
    """One simulated step; 200 with the application (docs/reference/tenant-api.md §5.3 shape)."""
    body = await parse_body(request, SimulateBody)
    items = None if body.items is None else [item.model_dump() for item in body.items]
    step = sandbox.Simulation(body.action, body.comment, body.rejectionReason, items)
    async with runtime.db.write() as session:
        ctx = write_context(request, sandbox.SimulatedActor.of(principal))
        view = await sandbox.simulate(session, ctx, principal, client_id, step)
        return await respond(request, session, 200, view)


@router.api_route(SIMULATE_PATH, methods=OTHER_METHODS, include_in_schema=False)
async def simulate_other_methods(client_id: str, request: Request) -> Response:
    """405 `Allow: POST` as routing answers a wrong method, except to a key of a tenant that
    is not a sandbox one: 404 as for an unknown path."""
    try:
        principal = await authenticate_tenant(request)
    except GatehouseError:
        principal = None
    if principal is not None:
        await _unless_sandbox(request, principal)
    status_code, code = METHOD_NOT_ALLOWED
    return error_response(
        request, status_code, code, "Method not allowed for this path.", headers={"Allow": "POST"}
    )
