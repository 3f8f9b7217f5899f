"""Tenant webhook routes, scope webhooks:manage (docs/reference/webhooks.md §4).

Thin: validate, then one service call; writes answer through `respond`
inside their write transaction so the Idempotency-Key record commits with
the effects.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.api.examples import ENDPOINT_EXAMPLE, PAGING, WEBHOOKS
from gatehouse.domain.webhooks import DeliveryStatus
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import ManageWebhooks, RuntimeDep
from gatehouse.web.openapi import Op, listing, status_filter
from gatehouse.web.responses import json_response, respond
from gatehouse.webhooks import deliveries
from gatehouse.webhooks import service as endpoints
from gatehouse.webhooks.schemas import (
    CreatedWebhookEndpoint,
    DeliveryPage,
    RotatedSecret,
    WebhookEndpoint,
    WebhookEndpointList,
    WebhookTestResult,
    endpoint_view,
)

router = APIRouter(tags=["webhooks"])


@router.post("/v1/webhooks", openapi_extra=body_schema(endpoints.CreateWebhookBody))
@Op(
    "createWebhookEndpoint",
    "Register a webhook endpoint (its secret is shown once)",
    {201: CreatedWebhookEndpoint},
    access=WEBHOOKS,
    example={
        "url": "https://hooks.example.com/gatehouse",
        "events": ["application.*"],
        "description": "CRM sync",
    },
    answer_example={**ENDPOINT_EXAMPLE, "secret": "whsec_" + "Q3Jt" * 12},
)
async def create_webhook(
    request: Request, principal: ManageWebhooks, runtime: RuntimeDep
) -> Response:
    """Register an endpoint: 201 with its `secret`, shown once (docs/reference/webhooks.md §4.2)."""
    body = await parse_body(request, endpoints.CreateWebhookBody)
    changes = await endpoints.validated_create(runtime, body)
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        view = await endpoints.create_endpoint(session, runtime, ctx, principal, changes)
        return await respond(request, session, 201, view)


@router.get("/v1/webhooks")
@Op(
    "listWebhookEndpoints",
    "List webhook endpoints",
    {200: WebhookEndpointList},
    access=WEBHOOKS,
    answer_example={"data": [ENDPOINT_EXAMPLE]},
)
async def list_webhooks(principal: ManageWebhooks, runtime: RuntimeDep) -> Response:
    """`{data: [endpoint…]}` without secrets (docs/reference/webhooks.md §4.3)."""
    async with runtime.db.read() as session:
        page = await endpoints.list_endpoints(session, principal.tenant_id)
    return json_response(200, page)


@router.get("/v1/webhooks/{endpoint_id}")
@Op(
    "getWebhookEndpoint",
    "Get a webhook endpoint",
    {200: WebhookEndpoint},
    access=WEBHOOKS,
    answer_example=ENDPOINT_EXAMPLE,
)
async def get_webhook(endpoint_id: str, principal: ManageWebhooks, runtime: RuntimeDep) -> Response:
    async with runtime.db.read() as session:
        endpoint = await endpoints.load_endpoint(session, principal.tenant_id, endpoint_id)
    return json_response(200, endpoint_view(endpoint))


@router.patch(
    "/v1/webhooks/{endpoint_id}",
    openapi_extra=body_schema(endpoints.UpdateWebhookBody, required=False),
)
@Op(
    "updateWebhookEndpoint",
    "Change a webhook endpoint's url, events or description",
    {200: WebhookEndpoint},
    access=WEBHOOKS,
    example={"events": ["*"]},
    answer_example=ENDPOINT_EXAMPLE,
)
async def update_webhook(
    endpoint_id: str, request: Request, principal: ManageWebhooks, runtime: RuntimeDep
) -> Response:
    """Change url, events or description; the URL is checked again
    (docs/reference/webhooks.md §4.5)."""
    body = await parse_body(request, endpoints.UpdateWebhookBody)
    changes = await endpoints.validated_update(runtime, body)
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        view = await endpoints.update_endpoint(session, ctx, principal, endpoint_id, changes)
        return await respond(request, session, 200, view)


@router.delete("/v1/webhooks/{endpoint_id}", status_code=204)
@Op(
    "deleteWebhookEndpoint",
    "Delete a webhook endpoint (pending deliveries are cancelled)",
    {204: None},
    access=WEBHOOKS,
    ok_descriptions={204: "Deleted."},
)
async def delete_webhook(
    endpoint_id: str, request: Request, principal: ManageWebhooks, runtime: RuntimeDep
) -> Response:
    """204; pending deliveries become `cancelled` (docs/reference/webhooks.md §4.6)."""
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        await endpoints.delete_endpoint(session, ctx, principal, endpoint_id)
        return await respond(request, session, 204)


@router.post("/v1/webhooks/{endpoint_id}/enable")
@Op(
    "enableWebhookEndpoint",
    "Enable a webhook endpoint",
    {200: WebhookEndpoint},
    access=WEBHOOKS,
    answer_example=ENDPOINT_EXAMPLE,
)
async def enable_webhook(
    endpoint_id: str, request: Request, principal: ManageWebhooks, runtime: RuntimeDep
) -> Response:
    """Enabled, consecutiveFailures 0, disabledReason null; nothing is replayed."""
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        view = await endpoints.enable(session, ctx, principal, endpoint_id)
        return await respond(request, session, 200, view)


@router.post("/v1/webhooks/{endpoint_id}/disable")
@Op(
    "disableWebhookEndpoint",
    "Disable a webhook endpoint (reason manual)",
    {200: WebhookEndpoint},
    access=WEBHOOKS,
    answer_example={
        **ENDPOINT_EXAMPLE,
        "status": "disabled",
        "disabledReason": "manual",
    },
)
async def disable_webhook(
    endpoint_id: str, request: Request, principal: ManageWebhooks, runtime: RuntimeDep
) -> Response:
    """Disabled with reason `manual`; pending deliveries become dead."""
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        view = await endpoints.disable(session, ctx, principal, endpoint_id)
        return await respond(request, session, 200, view)


@router.post("/v1/webhooks/{endpoint_id}/rotate-secret")
@Op(
    "rotateWebhookSecret",
    "Rotate the signing secret (the previous one stays active 24 h)",
    {200: RotatedSecret},
    access=WEBHOOKS,
    answer_example={
        "secret": "whsec_" + "N2Fk" * 12,
        "previousSecretExpiresAt": "2026-11-23T10:00:00.000Z",
    },
)
async def rotate_webhook_secret(
    endpoint_id: str, request: Request, principal: ManageWebhooks, runtime: RuntimeDep
) -> Response:
    """200 `{secret, previousSecretExpiresAt}` (docs/reference/webhooks.md §4.9)."""
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        view = await endpoints.rotate_secret(session, runtime, ctx, principal, endpoint_id)
        return await respond(request, session, 200, view)


@router.post("/v1/webhooks/{endpoint_id}/test")
@Op(
    "testWebhookEndpoint",
    "Send one signed webhook.test now and report what the receiver did",
    {200: WebhookTestResult},
    access=WEBHOOKS,
    answer_example={
        "success": True,
        "httpStatus": 200,
        "latencyMs": 84,
        "responseSnippet": "ok",
        "sentHeaders": {
            "Content-Type": "application/json",
            "Gatehouse-Event-Id": "evt_0a1b2c3d4e5f",
            "webhook-id": "evt_0a1b2c3d4e5f",
        },
        "error": None,
    },
)
async def test_webhook(
    endpoint_id: str, request: Request, principal: ManageWebhooks, runtime: RuntimeDep
) -> Response:
    """One synchronous signed `webhook.test`
    (docs/reference/webhooks.md §4.10); nothing is persisted.

    The POST to the receiver happens outside any write transaction; only the
    audit entry and the idempotency record are written afterwards.
    """
    result = await endpoints.send_test_event(runtime, principal.tenant_id, endpoint_id)
    async with runtime.db.write() as session:
        endpoints.record_test_send(session, write_context(request, principal), endpoint_id)
        return await respond(request, session, 200, result)


@router.get("/v1/webhooks/{endpoint_id}/deliveries")
@listing(
    "listWebhookDeliveries",
    "List an endpoint's deliveries, newest first",
    DeliveryPage,
    WEBHOOKS,
    {
        "id": "dlv_9e8d7c6b5a4f",
        "eventId": "evt_0a1b2c3d4e5f",
        "eventType": "application.submitted",
        "status": "succeeded",
        "attempts": 1,
        "createdAt": "2026-11-21T16:03:10.600Z",
        "lastAttemptAt": "2026-11-21T16:03:11.020Z",
        "nextAttemptAt": None,
        "lastHttpStatus": 200,
        "lastError": None,
    },
    paging=PAGING,
    filters=(status_filter("deliveries", DeliveryStatus),),
)
async def list_webhook_deliveries(
    endpoint_id: str, request: Request, principal: ManageWebhooks, runtime: RuntimeDep
) -> Response:
    """`{data, nextCursor, hasMore}`, newest first (docs/reference/webhooks.md §4.11)."""
    query = deliveries.parse_delivery_query(request.query_params.multi_items())
    async with runtime.db.read() as session:
        endpoint = await endpoints.load_endpoint(session, principal.tenant_id, endpoint_id)
        page = await deliveries.endpoint_deliveries(session, runtime.crypto, endpoint, query)
    return json_response(200, page)
