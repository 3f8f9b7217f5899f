"""A JSON body nested deeper than Python recurses is a bad body, never a 500: on the
dashboard's passkey calls (read with the standard library's `json`, which raises
`RecursionError` there rather than `ValueError`) as on the API routes (orjson, whose own
depth limit is a decoding error). SQLite by default, PostgreSQL with
GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import httpx

from tests.pages.helpers import csrf_of, dashboard_sign_in
from tests.support.factories import StaffFixture, TenantFixture

DEEP = b"[" * 3000 + b"]" * 3000  # 6 kB: within every body limit; deeper than 1000 levels
JSON = {"content-type": "application/json"}


async def test_the_passkey_calls_of_a_signed_in_person_refuse_a_deep_body(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    token = await dashboard_sign_in(client, staff)
    answer = await client.post(
        "/dashboard/account/passkeys", content=DEEP, headers={**JSON, "x-csrf-token": token}
    )
    assert answer.status_code == 400, answer.text[:300]
    assert answer.json() == {"message": "Send a JSON object."}


async def test_the_passkey_call_of_the_second_sign_in_step_refuses_a_deep_body(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    client.cookies.clear()
    first = await client.post(
        "/dashboard/sign-in", data={"email": staff.email, "password": staff.password}
    )
    assert first.headers["location"] == "/dashboard/sign-in/verify"
    token = csrf_of((await client.get("/dashboard/sign-in/verify")).text)
    answer = await client.post(
        "/dashboard/sign-in/passkey", content=DEEP, headers={**JSON, "x-csrf-token": token}
    )
    assert answer.status_code == 400, answer.text[:300]  # a failed second step, as for junk
    assert answer.json()["message"].startswith("Sign-in failed")


async def test_an_api_route_refuses_a_deep_body(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    answer = await client.post("/v1/applications", content=DEEP, headers={**JSON, **tenant.headers})
    assert answer.status_code == 400, answer.text[:300]
    assert answer.json()["error"]["code"] == "invalid-argument"
