"""Examples for the API reference (docs/api-reference.md): one application, its list element,
an information request and a document, typed by the shapes of `schemas.py` so mypy checks
them against the answers they illustrate.
"""

from __future__ import annotations

from gatehouse.applications.schemas import Application, ApplicationSummary, Document, InfoRequest

APPLICATION_EXAMPLE: Application = {
    "clientId": "app_8f2k1c9d0a7b",
    "externalRef": "crm-4411",
    "companyName": "Acme Trading LLC",
    "labelId": "lbl_2b7d9e1f0c3a",
    "applicantEmail": "founder@acme.example",
    "status": "needs_info",
    "createdAt": "2026-11-20T09:12:44.120Z",
    "updatedAt": "2026-11-22T10:00:00.000Z",
    "submittedAt": "2026-11-21T16:03:10.512Z",
    "decision": None,
    "openInfoRequest": {
        "requestId": "ir_5c1e0f7a2d9b",
        "seq": 1,
        "round": 1,
        "openItems": 1,
        "answeredItems": 0,
        "at": "2026-11-22T10:00:00.000Z",
    },
    "members": [
        {
            "uid": "mem_0d4c8b2e6f1a",
            "email": "founder@acme.example",
            "role": "applicant",
            "joinedAt": "2026-11-20T09:12:44.120Z",
        }
    ],
}
SUMMARY_EXAMPLE: ApplicationSummary = {  # type: ignore[assignment]
    key: value
    for key, value in APPLICATION_EXAMPLE.items()
    if key not in ("decision", "openInfoRequest", "members")
}
INFO_REQUEST_EXAMPLE: InfoRequest = {
    "requestId": "ir_5c1e0f7a2d9b",
    "seq": 1,
    "round": 1,
    "status": "open",
    "openItems": 1,
    "answeredItems": 0,
    "comment": "Please send a recent utility bill.",
    "createdAt": "2026-11-22T10:00:00.000Z",
    "updatedAt": "2026-11-22T10:00:00.000Z",
    "respondedAt": None,
    "closedAt": None,
    "cancelledAt": None,
    "items": [
        {
            "itemId": "itm_0f1e2d3c4b5a",
            "type": "document",
            "prompt": "A utility bill from the last three months.",
            "status": "open",
        }
    ],
}
DOCUMENT_EXAMPLE: Document = {
    "documentId": "doc_1a2b3c4d5e6f",
    "type": "passport",
    "status": "uploaded",
    "contentType": "application/pdf",
    "sizeBytes": 48211,
    "uploadedAt": "2026-11-21T15:40:02.331Z",
}
