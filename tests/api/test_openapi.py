"""The tenant API routes are documented in /openapi.json with their bodies."""

from __future__ import annotations

import httpx


async def test_tenant_routes_in_openapi(client: httpx.AsyncClient) -> None:
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    document = response.json()
    paths = document["paths"]
    for path, method in (
        ("/v1/applications", "post"),
        ("/v1/applications", "get"),
        ("/v1/login-sessions", "post"),
        ("/v1/applications/{client_id}", "get"),
        ("/v1/applications/{client_id}/login-sessions", "post"),
        ("/v1/applications/{client_id}/members", "post"),
        ("/v1/applications/{client_id}/members/{uid}", "delete"),
        ("/v1/applications/{client_id}/lock", "post"),
        ("/v1/applications/{client_id}/unlock", "post"),
        ("/v1/applications/{client_id}/info-requests", "get"),
        ("/v1/applications/{client_id}/decisions", "get"),
        ("/v1/applications/{client_id}/checklist", "get"),
        ("/v1/applications/{client_id}/documents", "get"),
        ("/v1/intakes", "get"),
        ("/staff/v1/tenants/{tenant_id}/intakes", "post"),
        ("/staff/v1/intakes/{label_id}", "patch"),
    ):
        assert method in paths[path], (path, method)
    schemas = document["components"]["schemas"]
    assert set(schemas["ProvisionBody"]["properties"]) == {
        "email",
        "externalRef",
        "companyName",
        "labelId",
    }
    assert "redirectPath" in schemas["LoginSessionBody"]["properties"]
    assert schemas["MemberBody"]["required"] == ["email"]
