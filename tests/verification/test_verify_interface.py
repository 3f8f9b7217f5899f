"""The /verify interface: callback registration and result retrieval (docs/reference/verification.md
§4.1, §5.3;
docs/reference/verification.md), and its separation from the tenant and staff APIs."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy import select

from gatehouse.app import create_app
from gatehouse.outbound import url_safety
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.storage.tables.verification import VerificationClient
from tests.conftest import make_settings
from tests.support.factories import StaffFixture, TenantFixture
from tests.verification.conftest import PASSPHRASE, Verification, basic

REGISTER = "/verify/clients/setWebhook/clientAuth"
URL = "https://callbacks.example.com/gatehouse"


def registration(client: dict[str, str], **overrides: object) -> dict[str, object]:
    body: dict[str, object] = {
        "clientUuid": client["clientUuid"],
        "clientSecret": client["clientSecret"],
        "callbackUrl": URL,
        "callbackPassphrase": PASSPHRASE,
    }
    body.update(overrides)
    return body


async def stored_client(runtime: Runtime, client_uuid: str) -> VerificationClient:
    async with runtime.db.read() as session:
        row = await session.get(VerificationClient, client_uuid)
    assert row is not None
    return row


async def test_registration_answers_a_message_and_stores_the_passphrase_encrypted(
    verification: Verification, client: httpx.AsyncClient, runtime: Runtime
) -> None:
    created = await verification.create_client()
    response = await client.post(REGISTER, json=registration(created))
    assert response.status_code == 200
    body = response.json()
    assert list(body) == ["message"]
    assert isinstance(body["message"], str)
    assert body["message"]
    row = await stored_client(runtime, created["clientUuid"])
    assert row.callback_url == URL
    assert row.callback_passphrase_encrypted is not None
    assert PASSPHRASE not in row.callback_passphrase_encrypted
    assert runtime.crypto.decrypt_text(row.callback_passphrase_encrypted) == PASSPHRASE
    # The secret is stored only as a keyed hash.
    assert row.secret_hash != created["clientSecret"]
    assert row.secret_hash == runtime.crypto.hash_secret(created["clientSecret"])


async def test_re_registration_replaces_the_previous_one(
    verification: Verification, client: httpx.AsyncClient, runtime: Runtime
) -> None:
    created = await verification.create_client()
    await client.post(REGISTER, json=registration(created))
    other = "https://other.example.org/hook"
    response = await client.post(
        REGISTER, json=registration(created, callbackUrl=other, callbackPassphrase="second-one")
    )
    assert response.status_code == 200
    row = await stored_client(runtime, created["clientUuid"])
    assert row.callback_url == other
    assert row.callback_passphrase_encrypted is not None
    assert runtime.crypto.decrypt_text(row.callback_passphrase_encrypted) == "second-one"


@pytest.mark.parametrize(
    "raw",
    [b"{not json", b"[]", b'"text"', b"", b"null"],
    ids=["malformed", "array", "string", "empty", "null"],
)
async def test_a_body_that_is_not_a_json_object_is_400_message(
    client: httpx.AsyncClient, raw: bytes
) -> None:
    response = await client.post(
        REGISTER, content=raw, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert list(response.json()) == ["message"]
    assert response.headers["service-request-id"].startswith("req_")


@pytest.mark.parametrize(
    "field", ["clientUuid", "clientSecret", "callbackUrl", "callbackPassphrase"]
)
async def test_a_missing_or_non_string_field_is_400_message(
    verification: Verification, client: httpx.AsyncClient, runtime: Runtime, field: str
) -> None:
    created = await verification.create_client()
    missing = registration(created)
    del missing[field]
    response = await client.post(REGISTER, json=missing)
    assert response.status_code == 400
    assert list(response.json()) == ["message"]
    assert field in response.json()["message"]
    wrong_type = registration(created, **{field: 12345678})
    response = await client.post(REGISTER, json=wrong_type)
    assert response.status_code == 400
    assert list(response.json()) == ["message"]
    assert (await stored_client(runtime, created["clientUuid"])).callback_url is None


@pytest.mark.parametrize("passphrase", ["", "12345", "abcde"])
async def test_a_passphrase_shorter_than_6_is_400(
    verification: Verification, client: httpx.AsyncClient, runtime: Runtime, passphrase: str
) -> None:
    created = await verification.create_client()
    response = await client.post(
        REGISTER, json=registration(created, callbackPassphrase=passphrase)
    )
    assert response.status_code == 400
    assert list(response.json()) == ["message"]
    assert (await stored_client(runtime, created["clientUuid"])).callback_url is None
    exactly_six = await client.post(
        REGISTER, json=registration(created, callbackPassphrase="123456")
    )
    assert exactly_six.status_code == 200


async def test_wrong_client_uuid_or_secret_is_401_message(
    verification: Verification, client: httpx.AsyncClient, runtime: Runtime
) -> None:
    created = await verification.create_client()
    other = await verification.create_client("Other")
    cases = [
        registration(created, clientSecret=created["clientSecret"] + "x"),
        registration(created, clientSecret=other["clientSecret"]),
        registration(created, clientUuid="00000000-0000-4000-8000-000000000000"),
        registration(created, clientUuid=other["clientUuid"]),
    ]
    for body in cases:
        response = await client.post(REGISTER, json=body)
        assert response.status_code == 401, body
        assert list(response.json()) == ["message"]
    assert (await stored_client(runtime, created["clientUuid"])).callback_url is None
    assert (await stored_client(runtime, other["clientUuid"])).callback_url is None


@pytest.fixture
async def strict_client(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    """The app with WEBHOOK_ALLOW_PRIVATE_URLS off (production rules)."""
    settings = make_settings(runtime.settings.database_url, webhook_allow_private_urls=False)
    strict = Runtime.build(settings)
    app = create_app(settings, strict)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c
    await strict.close()


@pytest.mark.parametrize(
    "url",
    [
        "http://callbacks.example.com/hook",
        "ftp://callbacks.example.com/hook",
        "https://127.0.0.1/hook",
        "https://localhost/hook",
        "https://user:pw@callbacks.example.com/hook",
        "not a url",
    ],
)
async def test_callback_must_be_https_without_allow_private(
    verification: Verification,
    strict_client: httpx.AsyncClient,
    runtime: Runtime,
    url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def public(host: str, port: int) -> list[str]:  # DNS, as the webhook tests stub it
        return ["93.184.216.34"]

    monkeypatch.setattr(url_safety, "resolve_host", public)
    created = await verification.create_client()
    response = await strict_client.post(REGISTER, json=registration(created, callbackUrl=url))
    assert response.status_code == 400
    assert list(response.json()) == ["message"]
    assert (await stored_client(runtime, created["clientUuid"])).callback_url is None
    ok = await strict_client.post(REGISTER, json=registration(created))
    assert ok.status_code == 200


async def test_allow_private_mode_accepts_http_loopback(
    verification: Verification, client: httpx.AsyncClient
) -> None:
    created = await verification.create_client()
    response = await client.post(
        REGISTER, json=registration(created, callbackUrl="http://127.0.0.1:9/hook")
    )
    assert response.status_code == 200
    bad = await client.post(
        REGISTER, json=registration(created, callbackUrl="ftp://127.0.0.1/hook")
    )
    assert bad.status_code == 400


async def test_passphrase_and_secret_are_never_logged(
    verification: Verification, client: httpx.AsyncClient, captured_logs: list[str]
) -> None:
    created = await verification.create_client()
    await client.post(REGISTER, json=registration(created, callbackPassphrase="p4ss-phrase-xyz"))
    await client.post(REGISTER, json=registration(created, callbackPassphrase="bad"))
    joined = "\n".join(captured_logs)
    assert "p4ss-phrase-xyz" not in joined
    assert created["clientSecret"] not in joined


async def test_registration_is_audited(
    verification: Verification, client: httpx.AsyncClient, runtime: Runtime
) -> None:
    created = await verification.create_client()
    response = await client.post(REGISTER, json=registration(created))
    async with runtime.db.read() as session:
        entries = list(
            await session.scalars(
                select(AuditEntry).where(AuditEntry.target == created["clientUuid"])
            )
        )
    actions = {entry.action: entry for entry in entries}
    assert set(actions) == {"verification.client.create", "verification.callback.register"}
    register = actions["verification.callback.register"]
    assert register.actor == f"verification_client:{created['clientUuid']}"
    assert register.request_id == response.headers["service-request-id"]


async def test_other_methods_on_the_registration_path_are_405_message(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get(REGISTER)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert list(response.json()) == ["message"]


# Result retrieval ---------------------------------------------------------------


async def test_retrieval_with_basic_auth(
    verification: Verification, client: httpx.AsyncClient
) -> None:
    created = await verification.create_client()
    customer = await verification.create_customer(
        created,
        documents=[
            {"type": "passport", "expiresAt": "2031-05-01T00:00:00Z"},
            {"type": "emiratesId", "expiresAt": "2030-01-15"},
        ],
    )
    changed = await verification.set_status(customer["uuid"], 9)
    response = await client.get(
        f"/verify/clients/customers/{customer['uuid']}",
        headers=basic(created["clientUuid"], created["clientSecret"]),
    )
    assert response.status_code == 200
    assert response.json() == {
        "id": customer["id"],
        "uuid": customer["uuid"],
        "email": "ann.lee@example.com",
        "phone": "+971500000001",
        "status": 9,
        "statusName": "Conflict",
        "updatedAt": changed.json()["updatedAt"],
        "documents": [
            {"type": "passport", "expiresAt": "2031-05-01T00:00:00.000Z"},
            {"type": "emirates_id", "expiresAt": "2030-01-15T00:00:00.000Z"},
        ],
    }


async def test_retrieval_refuses_bad_credentials_with_401_and_a_challenge(
    verification: Verification, client: httpx.AsyncClient
) -> None:
    created = await verification.create_client()
    customer = await verification.create_customer(created)
    path = f"/verify/clients/customers/{customer['uuid']}"
    for headers in (
        {},
        basic(created["clientUuid"], created["clientSecret"] + "x"),
        basic(created["clientUuid"], ""),
        basic("00000000-0000-4000-8000-000000000000", created["clientSecret"]),
        {"Authorization": "Basic !!!notbase64"},
        {"Authorization": f"Bearer {created['clientSecret']}"},
    ):
        response = await client.get(path, headers=headers)
        assert response.status_code == 401, headers
        assert response.headers["www-authenticate"].startswith("Basic")
        assert list(response.json()) == ["message"]


async def test_retrieval_of_another_clients_or_an_unknown_customer_is_404(
    verification: Verification, client: httpx.AsyncClient
) -> None:
    mine = await verification.create_client("Mine")
    theirs = await verification.create_client("Theirs")
    their_customer = await verification.create_customer(theirs)
    credentials = basic(mine["clientUuid"], mine["clientSecret"])
    foreign = await client.get(
        f"/verify/clients/customers/{their_customer['uuid']}", headers=credentials
    )
    unknown = await client.get(
        "/verify/clients/customers/00000000-0000-4000-8000-000000000000", headers=credentials
    )
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json() == unknown.json()
    own = await client.get(
        f"/verify/clients/customers/{their_customer['uuid']}",
        headers=basic(theirs["clientUuid"], theirs["clientSecret"]),
    )
    assert own.status_code == 200


# Separation of credentials ------------------------------------------------------


async def test_tenant_and_staff_credentials_do_not_authenticate_verify(
    verification: Verification,
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    staff: StaffFixture,
) -> None:
    created = await verification.create_client()
    customer = await verification.create_customer(created)
    path = f"/verify/clients/customers/{customer['uuid']}"
    for headers in (tenant.headers, staff.headers):
        assert (await client.get(path, headers=headers)).status_code == 401
    token = staff.token
    for user, password in ((staff.staff_id, token), (tenant.key_id, tenant.api_key)):
        assert (await client.get(path, headers=basic(user, password))).status_code == 401
    as_registration = await client.post(
        REGISTER,
        json=registration(
            {"clientUuid": staff.staff_id, "clientSecret": staff.token},
        ),
    )
    assert as_registration.status_code == 401


async def test_verification_credentials_do_not_authenticate_v1_or_staff(
    verification: Verification, client: httpx.AsyncClient
) -> None:
    created = await verification.create_client()
    uuid_, secret = created["clientUuid"], created["clientSecret"]
    attempts = [
        basic(uuid_, secret),
        {"Authorization": f"Bearer {secret}"},
        {"Authorization": f"Bearer {uuid_}:{secret}"},
        {"Authorization": f"Bearer service_{uuid_.replace('-', '')[:20]}_{secret}"},
        {"Authorization": f"Bearer staff_{uuid_.replace('-', '')[:20]}_{secret}"},
    ]
    for headers in attempts:
        for method, path in (
            ("GET", "/v1/applications"),
            ("GET", "/staff/v1/verification/clients"),
            ("GET", "/staff/v1/tenants"),
        ):
            response = await client.request(method, path, headers=headers)
            assert response.status_code == 401, (path, headers)
            assert response.json()["error"]["code"] == "unauthorized"


async def test_unknown_paths_and_wrong_methods_under_verify_answer_message(
    client: httpx.AsyncClient,
) -> None:
    unknown = await client.get("/verify/clients/nothing-here")
    assert unknown.status_code == 404
    assert list(unknown.json()) == ["message"]
    wrong = await client.post("/verify/clients/customers/some-uuid")
    assert wrong.status_code == 405
    assert wrong.headers["allow"] == "GET"
    assert list(wrong.json()) == ["message"]
    folded = await client.post(REGISTER + "/", json={})
    assert folded.status_code == 400  # a trailing slash reaches the same route
