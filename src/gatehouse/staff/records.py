"""Staff routes of records a regulator can trust (docs/reference/staff-api.md
§16.2 to §16.6): the signed chain head, the NDJSON export, an application's
evidence pack (PDF or JSON) and its legal hold."""

from __future__ import annotations

import asyncio
from datetime import datetime

from fastapi import APIRouter, Request
from pydantic import BaseModel
from starlette.responses import Response, StreamingResponse

from gatehouse.errors import invalid_argument
from gatehouse.evidence import EvidencePack, evidence_pack, render_pdf
from gatehouse.paging import query_values
from gatehouse.records import AuditHead, current_head, export_chain
from gatehouse.retention import LegalHoldView, set_legal_hold
from gatehouse.staff.examples import ADMIN, EXPORT, HEAD_EXAMPLE, MLRO, TENANT_FILTER, TIME
from gatehouse.timeutil import parse_ts
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, StaffAdmin, StaffMlro
from gatehouse.web.openapi import Media, Op, Query
from gatehouse.web.responses import json_response, respond

router = APIRouter(prefix="/staff/v1", tags=["staff: records"])
FORMATS = ("pdf", "json")


class LegalHoldBody(BaseModel):
    """`POST /staff/v1/applications/{clientId}/legal-hold` body: checked by the service."""

    hold: object = None
    reason: object = None


@router.get("/audit/head")
@Op(
    "getAuditHead",
    "The audit chain's head, signed",
    {200: AuditHead},
    access=ADMIN,
    answer_example=HEAD_EXAMPLE,
)
async def audit_head(staff: StaffAdmin, runtime: RuntimeDep) -> Response:
    """The audit chain's head, signed (admin+)."""
    return json_response(200, await current_head(runtime.db, runtime.crypto))


def _time(values: dict[str, str], name: str) -> datetime | None:
    text = values.get(name)
    if text is None:
        return None
    try:
        return parse_ts(text)
    except ValueError:
        raise invalid_argument(
            f"{name} must be an RFC 3339 timestamp.", name, "not a timestamp"
        ) from None


@router.get("/audit/export")
@Op(
    "exportAudit",
    "Every sealed audit entry as NDJSON, then the signed head",
    {200: Media({"application/x-ndjson": {"schema": {"type": "string"}, "example": EXPORT}})},
    access=ADMIN,
    query=(
        Query("from", "Entries at or after this time (RFC 3339).", TIME),
        Query("to", "Entries before this time (RFC 3339).", TIME),
        TENANT_FILTER,
    ),
)
async def audit_export(request: Request, staff: StaffAdmin, runtime: RuntimeDep) -> Response:
    """Every sealed entry as NDJSON, then the signed head (admin+)."""
    values = query_values(request.query_params.multi_items(), ("from", "to", "tenantId"))
    since, before = _time(values, "from"), _time(values, "to")
    tenant_id = values.get("tenantId")
    if tenant_id is not None and not tenant_id:
        raise invalid_argument("tenantId must not be empty.", "tenantId", "empty")
    lines = export_chain(
        runtime.db,
        runtime.crypto,
        since=since,
        before=before,
        tenant_id=tenant_id,
    )
    return StreamingResponse(lines, media_type="application/x-ndjson")


@router.get("/applications/{client_id}/evidence")
@Op(
    "getEvidencePack",
    "An application's evidence pack, PDF or JSON (audited)",
    {
        200: Media(
            {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
            json=EvidencePack,
        )
    },
    access=MLRO,
    errors=(410,),
    query=(
        Query(
            "format",
            "`pdf` (the default) or `json`.",
            {"type": "string", "enum": ["pdf", "json"]},
        ),
    ),
)
async def evidence(
    client_id: str, request: Request, staff: StaffMlro, runtime: RuntimeDep
) -> Response:
    """The application's evidence pack, PDF or `?format=json` (mlro+; audited)."""
    values = query_values(request.query_params.multi_items(), ("format",))
    chosen = values.get("format", "pdf")
    if chosen not in FORMATS:
        raise invalid_argument("format must be pdf or json.", "format", "unknown format")
    async with runtime.db.write() as session:
        pack = await evidence_pack(
            session, runtime.db, runtime.crypto, write_context(request, staff), client_id
        )
    if chosen == "json":
        return json_response(200, pack)
    pdf = await asyncio.to_thread(render_pdf, pack)
    name = f"evidence-{pack['application']['clientId']}.pdf"
    return Response(
        pdf,
        media_type="application/pdf",
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store",
        },
    )


@router.post("/applications/{client_id}/legal-hold", openapi_extra=body_schema(LegalHoldBody))
@Op(
    "setLegalHold",
    "Place or release an application's legal hold",
    {200: LegalHoldView},
    access=MLRO,
    errors=(410,),
    body_fields={
        "hold": {"type": "boolean"},
        "reason": {"type": "string", "minLength": 1, "maxLength": 4000},
    },
    example={"hold": True, "reason": "Subpoena 2026-114 from the regulator."},
    answer_example={
        "clientId": "app_8f2k1c9d0a7b",
        "legalHold": True,
        "reason": "Subpoena 2026-114 from the regulator.",
    },
)
async def legal_hold(
    client_id: str, request: Request, staff: StaffMlro, runtime: RuntimeDep
) -> Response:
    """Place or release a legal hold, with a reason (mlro+; audited)."""
    body = await parse_body(request, LegalHoldBody)
    async with runtime.db.write() as session:
        result = await set_legal_hold(
            session, write_context(request, staff), client_id, hold=body.hold, reason=body.reason
        )
        return await respond(request, session, 200, result)
