"""Schemathesis against /openapi.json, in-process (docs/api-reference.md).

Every documented operation is called with generated data and the right credential for its
surface (an API key with every scope, a super_admin's token, a portal session cookie, a
verification client's Basic credentials): no answer may be a 5xx, and every answer must be
documented: its status among the operation's responses, its body in the schema the document
gives for that status, its content type and its required headers (Service-Request-Id;
RateLimit-* on /v1 successes; Retry-After on 429). Positive data for every operation, invalid
data (negative mode) for those with a body, query parameters or request headers (the
`Idempotency-Key` of every /v1 write). Bounded: a few examples per operation.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from tests.conftest import make_settings
from tests.support.factories import StaffFixture, TenantFixture

MAX_EXAMPLES = 15
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


async def _portal_cookie(client: httpx.AsyncClient, tenant: TenantFixture) -> str:
    """A live portal session: a sign-in link made through /v1, then redeemed."""
    made = await client.post(
        "/v1/login-sessions", json={"email": "fuzz@example.test"}, headers=tenant.headers
    )
    assert made.status_code == 201, made.text
    path = httpx.URL(made.json()["loginUrl"]).path
    redeemed = await client.post(path, headers={"Origin": "http://testserver"})
    assert redeemed.status_code == 303, redeemed.text
    cookie = redeemed.cookies.get("gatehouse_session")
    assert cookie
    return str(cookie)


async def _verify_client(client: httpx.AsyncClient, staff: StaffFixture) -> str:
    made = await client.post(
        "/staff/v1/verification/clients",
        json={"name": "fuzz", "sandbox": True},
        headers=staff.headers,
    )
    assert made.status_code == 201, made.text
    body = made.json()
    raw = f"{body['clientUuid']}:{body['clientSecret']}".encode()
    return "Basic " + base64.b64encode(raw).decode()


class Credentials:
    def __init__(self, tenant: TenantFixture, staff: StaffFixture, cookie: str, basic: str) -> None:
        self.tenant = tenant
        self.staff = staff
        self.cookie = cookie
        self.basic = basic

    def for_path(self, path: str) -> dict[str, str]:
        if path == "/v1" or path.startswith("/v1/"):
            return self.tenant.headers
        if path.startswith("/staff/v1/"):
            return self.staff.headers
        if path.startswith("/portal/api/"):
            return {"Cookie": f"gatehouse_session={self.cookie}", "Origin": "http://testserver"}
        if path.startswith("/verify/"):
            return {"Authorization": self.basic}
        return {}


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_server_error_and_every_answer_documented(
    database_url: str, tenant: TenantFixture, staff: StaffFixture, mode: GenerationMode
) -> None:
    app_settings = make_settings(database_url, rate_limit_per_key=1_000_000)

    async def prepare() -> Credentials:
        # A runtime of its own, closed in this loop: database pools are bound to one loop.
        runtime = Runtime.build(app_settings)
        transport = httpx.ASGITransport(
            app=create_app(app_settings, runtime), client=("127.0.0.1", 50000)
        )
        try:
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
                return Credentials(
                    tenant, staff, await _portal_cookie(c, tenant), await _verify_client(c, staff)
                )
        finally:
            await runtime.close()

    credentials = asyncio.run(prepare())
    # The app gets its own runtime: schemathesis serves it from its own event-loop thread.
    app = create_app(app_settings, Runtime.build(app_settings))
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    surfaces = {op.path.split("/")[1] for op in operations}
    assert {"v1", "staff", "portal", "verify"} <= surfaces
    failures: list[str] = []
    for operation in operations:
        negatable = len(operation.body) or len(operation.query) or len(operation.headers)
        if mode == GenerationMode.NEGATIVE and not negatable:
            continue  # nothing to negate: string path parameters accept any string

        strategies = [(operation.as_strategy(generation_mode=mode), MAX_EXAMPLES)]
        if mode == GenerationMode.POSITIVE:
            # The document's own examples too: they reach the success paths that random data
            # rarely does (a valid email, a known action).
            strategies += [(s, 3) for s in operation.get_strategies_from_examples()]
        for strategy, examples in strategies:

            @given(case=strategy)
            @settings(
                max_examples=examples,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                derandomize=True,
                database=None,
            )
            def check(case: Any) -> None:
                case.call_and_validate(headers=credentials.for_path(case.path), checks=CHECKS)

            try:
                check()
            except Unsatisfiable:
                continue  # no invalid input can be expressed for this operation
            except Exception as exc:  # collect every operation's failure, then report all
                failures.append(f"{operation.method.upper()} {operation.path}: {exc}"[:2000])
    assert not failures, "\n\n".join(failures)
