"""Tenant isolation: every /v1 application route with another tenant's ids is 404
(docs/reference/tenant-api.md §4.2).
"""

from __future__ import annotations

import httpx

from gatehouse.runtime import Runtime
from tests.api.support import links_of, provision
from tests.support.factories import TenantFixture, make_tenant


async def test_every_application_route_hides_foreign_applications(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    other = await make_tenant(runtime, name="Other")
    victim = await provision(client, other, "victim@x.test", externalRef="v-1")
    cid = victim["clientId"]
    uid = victim["members"][0]["uid"]
    routes = [
        ("GET", f"/v1/applications/{cid}", None),
        ("GET", f"/v1/applications/{cid}/info-requests", None),
        ("GET", f"/v1/applications/{cid}/decisions", None),
        ("GET", f"/v1/applications/{cid}/checklist", None),
        ("GET", f"/v1/applications/{cid}/documents", None),
        ("POST", f"/v1/applications/{cid}/login-sessions", {}),
        ("POST", f"/v1/applications/{cid}/login-sessions", {"email": "victim@x.test"}),
        ("POST", f"/v1/applications/{cid}/members", {"email": "intruder@x.test"}),
        ("DELETE", f"/v1/applications/{cid}/members/{uid}?newOwnerUid={uid}", None),
        ("POST", f"/v1/applications/{cid}/lock", None),
        ("POST", f"/v1/applications/{cid}/unlock", None),
    ]
    for method, url, body in routes:
        response = await client.request(method, url, json=body, headers=tenant.headers)
        assert response.status_code == 404, (method, url, response.text)
        assert response.json()["error"]["code"] == "not-found"
        assert "victim" not in response.text
        assert cid not in response.text
    # The list and the external reference filter show nothing of the other tenant.
    listed = await client.get("/v1/applications?externalRef=v-1", headers=tenant.headers)
    assert listed.json()["data"] == []
    # A labelId of the other tenant is unknown here.
    response = await client.post(
        "/v1/applications",
        json={"email": "a@x.test", "labelId": other.label_id},
        headers=tenant.headers,
    )
    assert response.status_code == 400
    # Nothing changed on the victim.
    read = (await client.get(f"/v1/applications/{cid}", headers=other.headers)).json()
    assert read == {**victim, "updatedAt": read["updatedAt"]}
    assert read["updatedAt"] == victim["updatedAt"]
    assert await links_of(runtime, cid) == []
    unlocked = await client.post(f"/v1/applications/{cid}/unlock", headers=other.headers)
    assert unlocked.json()["access"] == "unlocked"


async def test_intakes_list_only_own_labels(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    other = await make_tenant(runtime, name="Other")
    mine = (await client.get("/v1/intakes", headers=tenant.headers)).json()["data"]
    assert [i["labelId"] for i in mine] == [tenant.label_id]
    assert other.label_id not in str(mine)
