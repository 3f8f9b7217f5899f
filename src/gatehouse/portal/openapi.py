"""What /openapi.json says about each `/portal/api` operation (docs/api-reference.md). These
routes act for the member of the portal session (the session cookie)."""

from __future__ import annotations

from typing import Any

from gatehouse.applicants import FormDraft, PortalMe
from gatehouse.applications import (
    DOCUMENT_EXAMPLE,
    INFO_REQUEST_EXAMPLE,
    Document,
    DocumentList,
    InfoRequest,
    InfoRequestList,
)
from gatehouse.web.openapi import Op, OperationTable, nullable

ME_EXAMPLE: PortalMe = {
    "clientId": "app_8f2k1c9d0a7b",
    "uid": "mem_0d4c8b2e6f1a",
    "email": "founder@acme.example",
    "role": "applicant",
    "status": "pending",
    "companyName": "Acme Trading LLC",
    "submittedAt": None,
}
FORM_EXAMPLE: FormDraft = {"companyName": "Acme Trading LLC", "fields": {"website": "acme.example"}}
UPLOAD_BODY: dict[str, Any] = {
    "type": "object",
    "required": ["type", "file"],
    "properties": {
        "type": {"type": "string", "description": "The document type, e.g. passport."},
        "file": {"type": "string", "format": "binary"},
    },
}

OPERATIONS: OperationTable = {
    ("GET", "/portal/api/me"): Op(
        "getPortalMe",
        "The signed-in member and their application",
        {200: PortalMe},
        answer_example=ME_EXAMPLE,
    ),
    ("POST", "/portal/api/submit"): Op(
        "submitApplication",
        "Submit the application (once; repeats change nothing)",
        {200: PortalMe},
        answer_example={**ME_EXAMPLE, "submittedAt": "2026-11-21T16:03:10.512Z"},
    ),
    ("POST", "/portal/api/form"): Op(
        "saveFormDraft",
        "Save the form draft",
        {200: FormDraft},
        body_fields={"fields": {"type": "object", "additionalProperties": True}},
        example=FORM_EXAMPLE,
        answer_example=FORM_EXAMPLE,
    ),
    ("GET", "/portal/api/info-requests"): Op(
        "listPortalInfoRequests",
        "The application's information requests, highest seq first",
        {200: InfoRequestList},
        answer_example={"data": [INFO_REQUEST_EXAMPLE]},
    ),
    ("POST", "/portal/api/info-requests/{request_id}/items/{item_id}/answer"): Op(
        "answerInfoRequestItem",
        "Answer an item (a document item may name an uploaded documentId)",
        {200: InfoRequest},
        errors=(410,),
        body_fields={
            "answer": nullable({"type": "string", "maxLength": 10000}),
            "documentId": nullable({"type": "string", "minLength": 1}),
        },
        example={"answer": "Our registered office moved in May."},
        answer_example=INFO_REQUEST_EXAMPLE,
    ),
    ("GET", "/portal/api/documents"): Op(
        "listPortalDocuments",
        "Metadata of the application's uploads",
        {200: DocumentList},
        answer_example={"data": [DOCUMENT_EXAMPLE]},
    ),
    ("POST", "/portal/api/documents"): Op(
        "uploadDocument",
        "Upload a document (multipart: type and file)",
        {201: Document},
        errors=(503,),
        body=UPLOAD_BODY,
        body_media="multipart/form-data",
        answer_example=DOCUMENT_EXAMPLE,
    ),
    ("POST", "/portal/api/logout"): Op(
        "endPortalSession",
        "End the portal session (sign out)",
        {204: None},
        ok_descriptions={204: "Signed out."},
    ),
}
