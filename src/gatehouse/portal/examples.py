"""The applicant portal's (`/portal/api`) examples in /openapi.json (docs/api-reference.md),
checked against their schemas by tests/api/test_openapi.py, and the upload's multipart body;
each route's own `Op` stands on the route, in portal/api.py."""

from __future__ import annotations

from typing import Any

from gatehouse.applicants.schemas import FormDraft, PortalMe

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
