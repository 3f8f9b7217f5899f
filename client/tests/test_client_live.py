"""The client against a real Gatehouse server (uvicorn on a loopback port),
docs/reference/tenant-api.md; docs/reference/webhooks.md: every tenant route, typed errors,
idempotent replays."""

from __future__ import annotations

import pytest
from gatehouse_client import (
    AccessState,
    AlreadyExists,
    AsyncClient,
    Client,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    RateLimited,
    Unauthorized,
)
from tests.support.factories import TenantFixture


@pytest.fixture
def client(live_server: str, tenant: TenantFixture) -> Client:
    with Client(live_server, tenant.api_key, max_retries=2, backoff_base=0.01) as c:
        yield c  # type: ignore[misc]


def test_provisioning_reads_and_access(client: Client, tenant: TenantFixture) -> None:
    (intake,) = client.list_intakes()
    assert intake.label_id == tenant.label_id

    created = client.create_application(
        "  Ada@Example.TEST ", external_ref=" crm-1 ", company_name="Ada Ltd"
    )
    assert created.created is True
    assert created.client_id.startswith("app_")
    assert created.status == "pending"
    assert created.status.is_known
    assert not created.is_approved
    assert created.external_ref == "crm-1"
    assert created.applicant_email == "ada@example.test"
    again = client.create_application("ada@example.test", external_ref="crm-1")
    assert again.created is False
    assert again.client_id == created.client_id

    read = client.get_application(created.client_id)
    assert read.client_id == created.client_id
    assert read.members_included
    assert [m.email for m in read.members] == ["ada@example.test"]
    assert read.updated_at is not None
    assert read.created_at is not None

    teammate = client.add_member(created.client_id, "bob@example.test")
    assert teammate.created is True
    assert teammate.uid
    assert teammate.role == "teammate"
    repeat = client.add_member(created.client_id, "bob@example.test")
    assert repeat.created is False
    assert repeat.joined_at == teammate.joined_at

    link = client.create_application_login_session(created.client_id, email="bob@example.test")
    assert link.client_id == created.client_id
    assert "/portal/login/" in link.login_url
    assert link.expires_at is not None
    assert link.login_url not in repr(link)

    locked = client.lock(created.client_id)
    assert isinstance(locked, AccessState)
    assert locked.locked
    assert locked.access == "locked"
    assert client.lock(created.client_id).access == "locked"
    with pytest.raises(PermissionDenied) as denied:
        client.create_application_login_session(created.client_id)
    assert denied.value.status == 403
    assert denied.value.code == "permission-denied"
    assert client.unlock(created.client_id).access == "unlocked"

    owner = next(m for m in read.members if m.email == "ada@example.test")
    with pytest.raises(FailedPrecondition):
        client.remove_member(created.client_id, owner.uid or "")  # owner needs a handover
    client.remove_member(created.client_id, owner.uid or "", new_owner_uid=teammate.uid)
    after = client.get_application(created.client_id)
    assert [m.email for m in after.members] == ["bob@example.test"]
    with pytest.raises(FailedPrecondition):
        client.remove_member(created.client_id, owner.uid or "", idempotent=False)

    assert client.list_info_requests(created.client_id) == []
    assert client.list_decisions(created.client_id) == []
    assert client.list_documents(created.client_id) == []
    checklist = client.get_checklist(created.client_id)
    assert [(c.key, c.kind, c.required, c.satisfied) for c in checklist] == [
        ("passport", "document", True, False)
    ]

    page = client.list_applications(external_ref="crm-1")
    assert [a.client_id for a in page.data] == [created.client_id]
    assert page.has_more is False
    assert page.next_cursor is None


def test_login_session_provisions_and_a_repeated_key_replays_the_same_link(
    client: Client,
) -> None:
    first = client.create_login_session(
        "cy@example.test", external_ref="crm-2", redirect_path="/status", idempotency_key="k-1"
    )
    assert first.status == "pending"
    assert first.login_url
    replay = client.create_login_session(
        "cy@example.test", external_ref="crm-2", redirect_path="/status", idempotency_key="k-1"
    )
    assert replay.login_url == first.login_url
    assert replay.client_id == first.client_id
    fresh = client.create_login_session("cy@example.test", external_ref="crm-2")
    assert fresh.login_url != first.login_url
    assert fresh.client_id == first.client_id


def test_errors_are_typed_with_the_request_id(client: Client, live_server: str) -> None:
    with pytest.raises(NotFound) as missing:
        client.get_application("app_doesnotexist")
    error = missing.value
    assert (error.status, error.code) == (404, "not-found")
    assert error.request_id
    assert error.request_id.startswith("req_")
    assert error.headers.get("service-request-id") == error.request_id

    with pytest.raises(InvalidArgument) as invalid:
        client.create_application("not-an-email")
    assert invalid.value.status == 400
    assert invalid.value.details

    client.create_application("dee@example.test", external_ref="crm-3")
    with pytest.raises(AlreadyExists) as taken:
        client.create_application("other@example.test", external_ref="crm-3")
    assert taken.value.status == 409
    assert taken.value.code == "already-exists"

    with pytest.raises(InvalidArgument):
        client.list_applications(cursor="forged")

    with (
        Client(live_server, "service_nosuchkey0000_" + "x" * 32) as stranger,
        pytest.raises(Unauthorized) as unauthorized,
    ):
        stranger.list_intakes()
    assert unauthorized.value.status == 401


def test_iter_applications_pages_with_the_cursor(client: Client) -> None:
    made = {client.create_application(f"p{i}@example.test").client_id for i in range(7)}
    seen = [a.client_id for a in client.iter_applications(page_size=3)]
    assert sorted(seen) == sorted(made)
    assert len(seen) == 7
    pending = list(client.iter_applications(status="pending", page_size=2))
    assert len(pending) == 7
    assert list(client.iter_applications(status="active", page_size=2)) == []


def test_webhook_management(client: Client) -> None:
    endpoint = client.webhooks.create(
        "http://127.0.0.1:9/hook", ["application.*"], description="CRM"
    )
    assert endpoint.id.startswith("we_")
    assert endpoint.secret
    assert endpoint.secret.startswith("whsec_")
    assert endpoint.enabled
    assert endpoint.events == ["application.*"]
    assert [e.id for e in client.webhooks.list()] == [endpoint.id]
    assert client.webhooks.list()[0].secret is None
    got = client.webhooks.get(endpoint.id)
    assert got.description == "CRM"
    assert got.secret is None

    updated = client.webhooks.update(endpoint.id, events=["application.submitted"])
    assert updated.events == ["application.submitted"]
    assert updated.description == "CRM"
    with pytest.raises(InvalidArgument):
        client.webhooks.update(endpoint.id, events=["application.nope"])

    disabled = client.webhooks.disable(endpoint.id)
    assert disabled.status == "disabled"
    assert disabled.disabled_reason == "manual"
    enabled = client.webhooks.enable(endpoint.id)
    assert enabled.enabled
    assert enabled.disabled_reason is None

    rotated = client.webhooks.rotate_secret(endpoint.id)
    assert rotated.secret.startswith("whsec_")
    assert rotated.secret != endpoint.secret
    assert rotated.previous_secret_expires_at is not None

    deliveries = client.webhooks.list_deliveries(endpoint.id, limit=10)
    assert deliveries.data == []
    assert deliveries.has_more is False

    client.webhooks.delete(endpoint.id)
    with pytest.raises(NotFound):
        client.webhooks.get(endpoint.id)


async def test_async_client_against_the_server(live_server: str, tenant: TenantFixture) -> None:
    async with AsyncClient(live_server, tenant.api_key) as client:
        created = await client.create_application("eve@example.test", external_ref="crm-9")
        assert created.created is True
        read = await client.get_application(created.client_id)
        assert read.client_id == created.client_id
        listed = [a.client_id async for a in client.iter_applications(external_ref="crm-9")]
        assert listed == [created.client_id]
        assert (await client.lock(created.client_id)).locked
        hooks = await client.webhooks.list()
        assert hooks == []


def test_a_real_429_carries_retry_after(
    runtime: object, database_url: str, tenant: TenantFixture
) -> None:
    from tests.conftest import make_settings
    from tests.support.live import serve_in_thread

    from gatehouse.app import create_app

    settings = make_settings(database_url, rate_limit_per_key=2)
    with (
        serve_in_thread(lambda: create_app(settings)) as base,
        Client(base, tenant.api_key, max_retries=0) as client,
    ):
        client.list_intakes()
        client.list_intakes()
        with pytest.raises(RateLimited) as limited:
            client.list_intakes()
    assert limited.value.status == 429
    assert limited.value.retry_after is not None
    assert 0 < limited.value.retry_after <= 60
