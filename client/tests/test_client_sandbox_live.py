"""client.sandbox.simulate against a real Gatehouse server (README: "A first case, end
to end"). The server must document the route in /openapi.json and create sandbox tenants;
a server without either fails these tests (they never skip).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from gatehouse_client import (
    AsyncClient,
    Client,
    DecisionApproved,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    WebhookTest,
    verify,
)
from receiver_capture import capturing
from tests.support.factories import StaffFixture, TenantFixture
from tests.support.live import free_port

from conftest import load_example
from gatehouse.runtime import Runtime
from gatehouse.webhooks.delivery import DeliveryWorker

sandbox_walk = load_example("sandbox_walk")

ROUTE = re.compile(r"/v1/sandbox/applications/\{[^/}]+\}/simulate")


@dataclass
class SandboxTenant:
    tenant_id: str
    api_key: str = field(repr=False)


def require_simulate_route(base_url: str) -> None:
    # The document is built on its first request: allow for a busy machine (httpx waits 5 s).
    answer = httpx.get(f"{base_url}/openapi.json", timeout=60)
    paths = answer.raise_for_status().json().get("paths", {})
    route = next((p for p in paths if ROUTE.fullmatch(p)), None)
    assert route is not None, "POST /v1/sandbox/applications/{clientId}/simulate is not documented"
    assert "post" in paths[route]


@pytest.fixture
def sandbox(live_server: str, staff: StaffFixture) -> SandboxTenant:
    """A sandbox tenant with an API key of every scope and one intake, made
    through the staff API as an operator would."""
    require_simulate_route(live_server)
    with httpx.Client(base_url=live_server, headers=staff.headers, timeout=60) as http:
        made = http.post("/staff/v1/tenants", json={"name": "Sandbox Co", "environment": "sandbox"})
        assert made.status_code == 201, made.text
        tenant = made.json()
        assert tenant["environment"] == "sandbox", tenant
        tenant_id = tenant["tenantId"]
        key = http.post(
            f"/staff/v1/tenants/{tenant_id}/api-keys",
            json={
                "name": "sdk",
                "scopes": ["applications:write", "applications:read", "webhooks:manage"],
            },
        )
        assert key.status_code == 201, key.text
        intake = http.post(f"/staff/v1/tenants/{tenant_id}/intakes", json={"name": "Sandbox"})
        assert intake.status_code == 201, intake.text
    return SandboxTenant(tenant_id, key.json()["apiKey"])


@pytest.fixture
def client(live_server: str, sandbox: SandboxTenant) -> Client:
    with Client(live_server, sandbox.api_key, max_retries=2, backoff_base=0.01) as c:
        yield c  # type: ignore[misc]


def test_simulate_walks_an_application_to_approval(client: Client) -> None:
    app = client.create_application("sandbox@example.test", external_ref="sbx-1")
    assert app.status == "pending"

    submitted = client.sandbox.simulate(app.client_id, "submit")
    assert submitted.client_id == app.client_id
    assert submitted.submitted_at is not None

    asked = client.sandbox.simulate(app.client_id, "request_info", comment="Proof of address")
    assert asked.status == "needs_info"
    assert asked.open_info_request is not None
    assert client.list_info_requests(app.client_id)

    answered = client.sandbox.simulate(app.client_id, "respond")
    assert answered.status == "pending"

    # A request with the integrator's own items; respond answers every one of them.
    client.sandbox.simulate(
        app.client_id,
        "request_info",
        items=[
            {"type": "document", "prompt": "A recent utility bill"},
            {"type": "field", "prompt": "VAT number"},
        ],
    )
    latest = client.list_info_requests(app.client_id)[0]
    assert [(i.type, i.prompt) for i in latest.items] == [
        ("document", "A recent utility bill"),
        ("field", "VAT number"),
    ]
    assert client.sandbox.simulate(app.client_id, "respond").status == "pending"

    approved = client.sandbox.simulate(app.client_id, "approve", comment="Welcome")
    assert approved.status == "active"
    assert approved.is_approved
    # A proposal by an analyst and a countersignature by an mlro.
    actions = [d.action for d in client.list_decisions(app.client_id)]
    assert {"approve", "approved"} <= set(actions)
    assert client.get_application(app.client_id).is_approved


def test_simulate_hold_release_reject_and_refusals(client: Client) -> None:
    app = client.create_application("held@example.test")
    assert client.sandbox.simulate(app.client_id, "hold", comment="Checking").status == "hold"
    assert client.sandbox.simulate(app.client_id, "release").status == "pending"
    with pytest.raises(FailedPrecondition):
        client.sandbox.simulate(app.client_id, "release")  # not on hold
    with pytest.raises(InvalidArgument):
        client.sandbox.simulate(app.client_id, "teleport")
    rejected = client.sandbox.simulate(
        app.client_id, "reject", comment="Sorry", rejection_reason="Sanctions match"
    )
    assert rejected.status == "rejected"
    assert rejected.rejection_reason == "Sanctions match"
    assert not rejected.is_approved
    with pytest.raises(NotFound):
        client.sandbox.simulate("app_doesnotexist", "submit")


async def test_async_simulate_replays_with_the_same_key(
    live_server: str, sandbox: SandboxTenant
) -> None:
    async with AsyncClient(live_server, sandbox.api_key, max_retries=2) as gh:
        app = await gh.create_application("async@example.test")
        first = await gh.sandbox.simulate(app.client_id, "hold", idempotency_key="sbx-hold-1")
        # The same key replays the first outcome: the hold is not attempted again.
        again = await gh.sandbox.simulate(app.client_id, "hold", idempotency_key="sbx-hold-1")
        assert first.status == again.status == "hold"
        assert len([d for d in await gh.list_decisions(app.client_id) if d.action == "hold"]) == 1


def test_simulate_is_not_found_for_a_live_tenant(
    live_server: str, sandbox: SandboxTenant, tenant: TenantFixture
) -> None:
    with Client(live_server, tenant.api_key) as live:
        app = live.create_application("live@example.test")
        with pytest.raises(NotFound):
            live.sandbox.simulate(app.client_id, "submit")
        assert live.get_application(app.client_id).status == "pending"


def test_sandbox_events_say_sandbox_and_are_typed(client: Client) -> None:
    port = free_port()
    with capturing(port) as receiver:
        endpoint = client.webhooks.create(f"http://127.0.0.1:{port}/hooks", ["*"])
        result = client.webhooks.test(endpoint.id)
        assert result.success, result
        (delivery,) = receiver.deliveries
        event = verify(delivery.body, delivery.headers, endpoint.secret or "")
        assert event.environment == "sandbox"
        assert event.is_sandbox
        assert isinstance(event.payload, WebhookTest)
        assert event.payload.endpoint_id == endpoint.id

        # Simulated steps make the same events as the real ones.
        app = client.create_application("events@example.test")
        client.sandbox.simulate(app.client_id, "submit")
        client.sandbox.simulate(app.client_id, "approve")
        types = {d.event_type for d in client.webhooks.list_deliveries(endpoint.id, limit=100).data}
        assert {
            "application.submitted",
            "application.decision.proposed",
            "application.decision.approved",
            "application.status.changed",
        } <= types


async def test_the_readme_sandbox_walk_receives_and_verifies_the_events(
    runtime: Runtime, live_server: str, sandbox: SandboxTenant, tmp_path: Path
) -> None:
    """examples/sandbox_walk.py, the README's first case: provision, simulate, receive; run
    twice against one tenant, as a reader following the README may, each run on a new
    application and leaving no endpoint behind."""
    stop = asyncio.Event()
    worker = asyncio.create_task(DeliveryWorker(runtime, poll_seconds=0.05).run(stop))
    try:
        runs = [
            await asyncio.to_thread(
                sandbox_walk.walk, live_server, sandbox.api_key, tmp_path / f"inbox{n}.db"
            )
            for n in range(2)
        ]
    finally:
        stop.set()
        await asyncio.wait_for(worker, 30)
    assert runs[0][0].data["clientId"] != runs[1][0].data["clientId"]
    for events in runs:
        assert [e.type for e in events] == [
            "application.submitted",
            "application.decision.proposed",
            "application.status.changed",
            "application.decision.approved",
            "application.status.changed",
        ]
        assert all(e.is_sandbox and e.tenant_id == sandbox.tenant_id for e in events)
        assert events[-1].data["status"] == "active"
        approved = events[3].payload
        assert isinstance(approved, DecisionApproved)
        assert approved.actor_role == "mlro"
        assert approved.comment == "Welcome"
        assert approved.is_approved
    with Client(live_server, sandbox.api_key) as gh:
        assert gh.webhooks.list() == []
