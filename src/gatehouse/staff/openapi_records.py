"""What /openapi.json says about records a regulator can trust: the audit chain's head and
export, the evidence pack and legal holds (docs/reference/staff-api.md §16)."""

from __future__ import annotations

from gatehouse.domain.principals import Role
from gatehouse.evidence import EvidencePack
from gatehouse.records import AuditHead
from gatehouse.retention import LegalHoldView
from gatehouse.staff.openapi_tenants import TENANT_FILTER
from gatehouse.web.openapi import Media, Op, OperationTable, Query

MLRO = Role.MLRO.value
ADMIN = Role.ADMIN.value
TIME = {"type": "string", "format": "date-time"}
HEAD_EXAMPLE: AuditHead = {
    "seq": 1042,
    "hash": "9f2c" + "0" * 60,
    "at": "2026-11-26T18:00:02.000Z",
    "signature": "a1b2c3.5e" + "0" * 62,
}

EXPORT = (
    '{"seq":1,"at":"2026-11-26T18:00:00.000Z","actor":"staff:stf_1a2b3c4d5e6f",'
    '"action":"tenant.updated","target":"ten_4d3c2b1a0f9e","tenantId":"ten_4d3c2b1a0f9e",'
    '"applicationId":null,"requestId":"req_7d6c5b4a3f2e","prevHash":"' + "0" * 64 + '",'
    '"hash":"' + "9f2c" + "0" * 60 + '"}\n'
    '{"head":{"seq":1,"hash":"' + "9f2c" + "0" * 60 + '","at":"2026-11-26T18:00:02.000Z",'
    '"signature":"a1b2c3.' + "5e" + "0" * 62 + '"}}\n'
)

OPERATIONS: OperationTable = {
    ("GET", "/staff/v1/audit/head"): Op(
        "getAuditHead",
        "The audit chain's head, signed",
        {200: AuditHead},
        access=ADMIN,
        answer_example=HEAD_EXAMPLE,
    ),
    ("GET", "/staff/v1/audit/export"): Op(
        "exportAudit",
        "Every sealed audit entry as NDJSON, then the signed head",
        {200: Media({"application/x-ndjson": {"schema": {"type": "string"}, "example": EXPORT}})},
        access=ADMIN,
        query=(
            Query("from", "Entries at or after this time (RFC 3339).", TIME),
            Query("to", "Entries before this time (RFC 3339).", TIME),
            TENANT_FILTER,
        ),
    ),
    ("GET", "/staff/v1/applications/{client_id}/evidence"): Op(
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
    ),
    ("POST", "/staff/v1/applications/{client_id}/legal-hold"): Op(
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
    ),
}
