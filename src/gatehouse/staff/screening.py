"""Staff screening and risk routes (docs/reference/staff-api.md §17): the watchlists, an
application's hits and risk, resolving a hit, running a screening, overriding the risk.

Thin endpoints: authenticate, check the role, read the body, call one service function in
one transaction.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict
from starlette.responses import Response

from gatehouse.domain.principals import Role
from gatehouse.risk import override_risk, risk_view
from gatehouse.screening import read_screening, resolve_hit, run_screening, watch_lists
from gatehouse.web.auth import require_role
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, StaffUser
from gatehouse.web.responses import json_response

router = APIRouter(prefix="/staff/v1", tags=["staff: screening"])


class ResolveBody(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")

    resolution: Any = None
    comment: Any = None


class OverrideBody(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")

    level: Any = None
    reason: Any = None


@router.get("/screening/lists")
async def get_lists(request: Request, staff: StaffUser, runtime: RuntimeDep) -> Response:
    """The watchlists in force (analyst+)."""
    require_role(staff, Role.ANALYST)
    async with runtime.db.read() as session:
        return json_response(200, await watch_lists(session))


@router.get("/applications/{client_id}/screening")
async def get_screening(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """`{status, screenedAt, data}` (analyst+)."""
    require_role(staff, Role.ANALYST)
    async with runtime.db.read() as session:
        return json_response(200, await read_screening(session, client_id))


@router.post("/applications/{client_id}/screening/run")
async def post_screening_run(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Queue a screening now → 202 (analyst+)."""
    require_role(staff, Role.ANALYST)
    async with runtime.db.write() as session:
        result = await run_screening(session, write_context(request, staff), client_id)
    return json_response(202, result)


@router.post("/screening-hits/{hit_id}/resolve", openapi_extra=body_schema(ResolveBody))
async def post_resolve(
    hit_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Resolve a hit as match or no_match with a comment → 200 the hit (analyst+; changing a
    resolved hit: mlro+)."""
    require_role(staff, Role.ANALYST)
    body = await parse_body(request, ResolveBody)
    async with runtime.db.write() as session:
        hit = await resolve_hit(
            session,
            write_context(request, staff),
            staff,
            hit_id,
            resolution=body.resolution,
            comment=body.comment,
        )
    return json_response(200, hit)


@router.get("/applications/{client_id}/risk")
async def get_risk(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """`{level, score, factors, computedLevel, override}` (analyst+)."""
    require_role(staff, Role.ANALYST)
    async with runtime.db.read() as session:
        return json_response(200, await risk_view(session, client_id))


@router.post("/applications/{client_id}/risk/override", openapi_extra=body_schema(OverrideBody))
async def post_risk_override(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Set (or clear with `level: null`) the effective level, with a reason (mlro+)."""
    require_role(staff, Role.MLRO)
    body = await parse_body(request, OverrideBody)
    async with runtime.db.write() as session:
        risk = await override_risk(
            session,
            write_context(request, staff),
            staff,
            client_id,
            level=body.level,
            reason=body.reason,
        )
    return json_response(200, risk)
