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
from gatehouse.domain.screening import RESOLUTIONS, RISK_LEVELS
from gatehouse.risk import risk_view
from gatehouse.risk.schemas import Risk
from gatehouse.risk.service import override_risk
from gatehouse.screening.schemas import Hit, Screening, ScreeningRequested, WatchLists
from gatehouse.screening.service import read_screening, resolve_hit, run_screening, watch_lists
from gatehouse.staff.examples import ANALYST, COMMENT, HIT_EXAMPLE, MLRO, RISK_EXAMPLE
from gatehouse.staff.shells import read_answer, write_answer
from gatehouse.web.auth import require_role
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.dependencies import RuntimeDep, StaffUser
from gatehouse.web.openapi import Op, nullable

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
@Op(
    "listScreeningLists",
    "The watchlists in force",
    {200: WatchLists},
    access=ANALYST,
    answer_example={
        "data": [
            {
                "name": "opensanctions",
                "entities": 1,
                "version": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                "loadedAt": "2026-11-22T10:00:00.000Z",
            }
        ]
    },
)
async def get_lists(request: Request, staff: StaffUser, runtime: RuntimeDep) -> Response:
    """The watchlists in force (analyst+)."""
    require_role(staff, Role.ANALYST)
    return await read_answer(runtime, watch_lists)


@router.get("/applications/{client_id}/screening")
@Op(
    "getScreening",
    "An application's screening: its status and hits, best score first",
    {200: Screening},
    access=ANALYST,
    answer_example={
        "status": "hits",
        "screenedAt": "2026-11-22T10:00:00.000Z",
        "data": [HIT_EXAMPLE],
    },
)
async def get_screening(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """`{status, screenedAt, data}` (analyst+)."""
    require_role(staff, Role.ANALYST)
    return await read_answer(runtime, lambda session: read_screening(session, client_id))


@router.post("/applications/{client_id}/screening/run")
@Op(
    "runScreening",
    "Screen an application now (in the background)",
    {202: ScreeningRequested},
    access=ANALYST,
    errors=(410,),
    body_required=False,
    answer_example={"clientId": "app_8f2k1c9d0a7b", "queued": True},
)
async def post_screening_run(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Queue a screening now → 202 (analyst+)."""
    require_role(staff, Role.ANALYST)
    return await write_answer(
        request, staff, runtime, lambda session, ctx: run_screening(session, ctx, client_id), 202
    )


@router.post("/screening-hits/{hit_id}/resolve", openapi_extra=body_schema(ResolveBody))
@Op(
    "resolveScreeningHit",
    "Resolve a screening hit as a match or no match",
    {200: Hit},
    access=ANALYST,
    errors=(410,),
    body_fields={
        "resolution": {"type": "string", "enum": list(RESOLUTIONS)},
        "comment": COMMENT,
    },
    description="Changing a resolved hit needs the mlro role (docs/reference/staff-api.md §17).",
    example={"resolution": "no_match", "comment": "Different birth date and nationality."},
    answer_example={**HIT_EXAMPLE, "status": "no_match"},
)
async def post_resolve(
    hit_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Resolve a hit as match or no_match with a comment → 200 the hit (analyst+; changing a
    resolved hit: mlro+)."""
    require_role(staff, Role.ANALYST)
    body = await parse_body(request, ResolveBody)
    return await write_answer(
        request,
        staff,
        runtime,
        lambda session, ctx: resolve_hit(
            session, ctx, staff, hit_id, resolution=body.resolution, comment=body.comment
        ),
    )


@router.get("/applications/{client_id}/risk")
@Op(
    "getRisk",
    "An application's risk: level, score, factors and override",
    {200: Risk},
    access=ANALYST,
    answer_example=RISK_EXAMPLE,
)
async def get_risk(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """`{level, score, factors, computedLevel, override}` (analyst+)."""
    require_role(staff, Role.ANALYST)
    return await read_answer(runtime, lambda session: risk_view(session, client_id))


@router.post("/applications/{client_id}/risk/override", openapi_extra=body_schema(OverrideBody))
@Op(
    "overrideRisk",
    "Override an application's risk level (null clears the override)",
    {200: Risk},
    access=MLRO,
    errors=(410,),
    body_fields={
        "level": nullable({"type": "string", "enum": list(RISK_LEVELS)}),
        "reason": COMMENT,
    },
    example={"level": "medium", "reason": "Known customer of the group since 2019."},
    answer_example=RISK_EXAMPLE,
)
async def post_risk_override(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Set (or clear with `level: null`) the effective level, with a reason (mlro+)."""
    require_role(staff, Role.MLRO)
    body = await parse_body(request, OverrideBody)
    return await write_answer(
        request,
        staff,
        runtime,
        lambda session, ctx: override_risk(
            session, ctx, staff, client_id, level=body.level, reason=body.reason
        ),
    )
