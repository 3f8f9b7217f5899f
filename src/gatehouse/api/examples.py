"""The tenant API's (`/v1`) shared pieces of /openapi.json (docs/api-reference.md): the scope
each route's `Op` names, its paging parameters, and the examples several routes answer with
(checked against their schemas by tests/api/test_openapi.py). Each route's own `Op` stands on
the route, in api/*.py."""

from __future__ import annotations

from gatehouse.applications.schemas import Member, SignInLink
from gatehouse.domain.principals import Scope
from gatehouse.domain.webhooks import EndpointStatus
from gatehouse.web.openapi import CURSOR, PAGE_SIZE, Query
from gatehouse.webhooks.schemas import WebhookEndpoint

WRITE = Scope.APPLICATIONS_WRITE.value
READ = Scope.APPLICATIONS_READ.value
WEBHOOKS = Scope.WEBHOOKS_MANAGE.value

PAGING = (Query("limit", "Page size, 1 to 100 (default 25).", PAGE_SIZE), CURSOR)

# -- examples ---------------------------------------------------------------------------------

MEMBER_EXAMPLE: Member = {
    "uid": "mem_7a1b2c3d4e5f",
    "email": "cfo@acme.example",
    "role": "teammate",
    "joinedAt": "2026-11-22T10:05:00.000Z",
}
LINK_EXAMPLE: SignInLink = {
    "loginUrl": "https://onboarding.example.com/portal/login/Zt4…",
    "clientId": "app_8f2k1c9d0a7b",
    "expiresAt": "2026-11-25T10:00:00.000Z",
}
ENDPOINT_EXAMPLE: WebhookEndpoint = {
    "id": "we_3f9a0b1c2d4e",
    "url": "https://hooks.example.com/gatehouse",
    "events": ["application.*"],
    "status": EndpointStatus.ENABLED,
    "description": "CRM sync",
    "createdAt": "2026-11-20T09:00:00.000Z",
    "updatedAt": "2026-11-20T09:00:00.000Z",
    "disabledReason": None,
    "consecutiveFailures": 0,
}
EMAIL_BODY = {"email": "founder@acme.example", "externalRef": "crm-4411"}
