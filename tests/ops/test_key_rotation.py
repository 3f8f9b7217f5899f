"""Two rotations of the key ring, as docs/operations.md ("Keys and rotation") tells operators:
A; then B with A previous and `gatehouse keys rotate`; then C with B previous (A dropped) and
`gatehouse keys rotate` again; then C alone.

Everything sealed under A is read back through the paths that use it, at every step: webhook
secrets (a delivery the receiver verifies with the secret it was given), callback
passphrases (a callback carrying it), remembered idempotent answers (a replay), TOTP secrets
(the credential opened, and a dashboard sign-in with a code at the end), documents (the staff
content route). Credentials are digests that no rotation can move: an API key and a staff
token used while their key is in the ring are stored again under the current key and keep
working; ones left unused while their key leaves the ring stop working, and `keys rotate`
counted them beforehand."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from gatehouse.app import create_app
from gatehouse.crypto import Crypto
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import ApiKey
from gatehouse.storage.tables.staff_identity import StaffCredential, StaffToken
from gatehouse.verification.delivery import run_callback_worker
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.conftest import make_settings
from tests.documents.support import applicant, pdf_bytes, secret_marker, upload
from tests.pages.helpers import PASSWORD, accept_invite, sign_in_with_password
from tests.support.browser import SAME_ORIGIN
from tests.support.factories import StaffFixture, TenantFixture, make_staff, make_tenant
from tests.support.leaks import remember
from tests.support.live import serve_in_thread
from tests.support.processes import clean_env, run
from tests.verification.conftest import PASSPHRASE, Recorder, Verification, eventually
from tests.webhooks.conftest import create_endpoint, emit
from tests.webhooks.receiver import Receiver, running_receiver

pytestmark = pytest.mark.slow

KEY_A = "rotation-key-a-" + "a1" * 24
KEY_B = "rotation-key-b-" + "b2" * 24
KEY_C = "rotation-key-c-" + "c3" * 24
LOGIN_REQUEST = {"email": "rotation@example.test", "externalRef": "rotation-1"}


@dataclass
class Made:
    """What was made under key A."""

    tenant: TenantFixture  # its key is used at every step
    idle_tenant: TenantFixture  # its key is never used after A
    staff: StaffFixture  # super_admin with TOTP; its token is used at every step
    idle_staff: StaffFixture
    endpoint: dict[str, Any]
    customer_uuid: str
    idempotent: dict[str, Any]  # the first answer of the idempotent request
    document_id: str
    document: bytes


@dataclass
class Ring:
    database_url: str
    store: str
    receiver: Receiver
    callbacks: Recorder
    callbacks_url: str

    @asynccontextmanager
    async def app(
        self, key: str, previous: tuple[str, ...] = ()
    ) -> AsyncIterator[tuple[httpx.AsyncClient, Runtime]]:
        settings = make_settings(
            self.database_url,
            secret_key=key,
            previous_secret_keys=",".join(previous) or None,
            document_store=self.store,
        )
        runtime = Runtime.build(settings)
        transport = httpx.ASGITransport(
            app=create_app(settings, runtime), client=("127.0.0.1", 50001)
        )
        try:
            async with httpx.AsyncClient(
                transport=transport, base_url="http://testserver", headers=SAME_ORIGIN
            ) as c:
                yield c, runtime
        finally:
            await runtime.close()

    def rotate(self, key: str, previous: tuple[str, ...], cwd: Path) -> dict[str, Any]:
        env = clean_env(
            database_url=self.database_url,
            secret_key=key,
            previous_secret_keys=",".join(previous),
            document_store=self.store,
        )
        done = run(["keys", "rotate"], env, cwd, timeout=120)
        assert done.returncode == 0, done.stderr
        printed: dict[str, Any] = json.loads(done.stdout)
        assert printed["currentKeyId"] == Crypto(key).current_kid
        return printed


async def make_everything(ring: Ring, client: httpx.AsyncClient, runtime: Runtime) -> Made:
    tenant = await make_tenant(runtime)
    idle_tenant = await make_tenant(runtime, name="Idle")
    staff = await make_staff(runtime, "super_admin")
    idle_staff = await make_staff(runtime, "admin")
    await accept_invite(client, staff, PASSWORD)  # enrols TOTP: a sealed secret
    client.cookies.clear()

    endpoint = await create_endpoint(client, tenant, ring.receiver.url + "/rotation")
    remember(endpoint["secret"])
    ring.receiver.secrets = [endpoint["secret"]]

    verification = Verification(client, staff)
    verification_client = await verification.create_client()
    remember(verification_client["clientSecret"])
    registered = await verification.register(verification_client, ring.callbacks_url)
    assert registered.status_code == 200, registered.text
    customer = await verification.create_customer(verification_client)

    headers = {**tenant.headers, "Idempotency-Key": "rotation-intent"}
    first = await client.post("/v1/login-sessions", json=LOGIN_REQUEST, headers=headers)
    assert first.status_code == 201, first.text
    remember(first.json()["loginUrl"].rsplit("/", 1)[1])

    content = pdf_bytes(secret_marker("rotation-document"), size=40_000)
    async with httpx.AsyncClient(
        transport=client._transport, base_url="http://testserver", headers=SAME_ORIGIN
    ) as portal:
        await applicant(portal, tenant, email="doc@example.test", externalRef="doc-1")
        uploaded = await upload(portal, content, "application/pdf")
        assert uploaded.status_code == 201, uploaded.text
    return Made(
        tenant=tenant,
        idle_tenant=idle_tenant,
        staff=staff,
        idle_staff=idle_staff,
        endpoint=endpoint,
        customer_uuid=customer["uuid"],
        idempotent=first.json(),
        document_id=uploaded.json()["documentId"],
        document=content,
    )


async def read_everything(
    ring: Ring, client: httpx.AsyncClient, runtime: Runtime, made: Made, idle: int | None
) -> None:
    """Every sealed value made under A, through the path that uses it; `idle`: what the
    credentials left unused since A answer (None: leave them unused)."""
    # Credentials first (the used ones): authenticated, then stored under the current key.
    assert (await client.get("/v1/webhooks", headers=made.tenant.headers)).status_code == 200
    assert (await client.get("/staff/v1/tenants", headers=made.staff.headers)).status_code == 200
    kid = runtime.crypto.current_kid
    async with runtime.db.read() as session:
        key_digest = await session.scalar(
            select(ApiKey.secret_hash).where(ApiKey.id == made.tenant.key_id)
        )
        token_digests = list(
            await session.scalars(
                select(StaffToken.token_hash).where(StaffToken.staff_id == made.staff.staff_id)
            )
        )
        credential = await session.get(StaffCredential, made.staff.staff_id)
    assert key_digest is not None
    assert key_digest.startswith(f"k{kid}$")
    assert token_digests
    assert all(d.startswith(f"k{kid}$") for d in token_digests)

    # TOTP secret.
    assert credential is not None
    assert credential.totp_secret_encrypted is not None
    assert runtime.crypto.decrypt_text(credential.totp_secret_encrypted) == made.staff.totp_secret

    # A webhook delivery signed with the secret the tenant was given.
    before = len(ring.receiver.snapshot())
    await emit(runtime, made.tenant.tenant_id)
    stop = asyncio.Event()
    worker = DeliveryWorker(runtime, poll_seconds=0.05, lease_seconds=5)
    task = asyncio.create_task(worker.run(stop))
    try:
        await asyncio.to_thread(ring.receiver.wait_for, before + 1, 30)
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
    delivered = ring.receiver.snapshot()[before:]
    assert [item.verified for item in delivered] == [True], [i.refusal for i in delivered]

    # A verification callback carrying the passphrase the client registered.
    sent = len(ring.callbacks.requests)
    verification = Verification(client, made.staff)
    code = 6 if sent % 2 == 0 else 9
    changed = await verification.set_status(made.customer_uuid, code)
    assert changed.status_code == 200, changed.text
    stop = asyncio.Event()
    task = asyncio.create_task(run_callback_worker(runtime, stop, idle_seconds=0.05))
    try:
        await eventually(lambda: len(ring.callbacks.requests) > sent, 30)
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
    assert ring.callbacks.requests[-1].json()["passphrase"] == PASSPHRASE

    # The remembered idempotent answer, replayed.
    headers = {**made.tenant.headers, "Idempotency-Key": "rotation-intent"}
    again = await client.post("/v1/login-sessions", json=LOGIN_REQUEST, headers=headers)
    assert again.status_code == 201, again.text
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == made.idempotent

    # The document, through the staff content route.
    opened = await client.get(
        f"/staff/v1/documents/{made.document_id}/content", headers=made.staff.headers
    )
    assert opened.status_code == 200, opened.text
    assert opened.content == made.document

    # The credentials left unused since A.
    if idle is not None:
        idle_key = await client.get("/v1/webhooks", headers=made.idle_tenant.headers)
        idle_token = await client.get("/staff/v1/tenants", headers=made.idle_staff.headers)
        assert (idle_key.status_code, idle_token.status_code) == (idle, idle)


def by_column(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {entry["column"]: entry for entry in entries}


async def test_two_rotations_keep_every_secret_and_the_credentials_in_use(
    fresh_database_url: str, tmp_path: Path
) -> None:
    store = f"file://{tmp_path}/documents"
    callbacks = Recorder()
    with (
        running_receiver(Receiver()) as receiver,
        serve_in_thread(lambda: callbacks) as callbacks_base,  # type: ignore[arg-type,return-value]
    ):
        ring = Ring(fresh_database_url, store, receiver, callbacks, callbacks_base + "/callbacks")
        async with ring.app(KEY_A) as (client, runtime):
            made = await make_everything(ring, client, runtime)

        # B current, A previous; rotate.
        printed = ring.rotate(KEY_B, (KEY_A,), tmp_path)
        assert printed["keyIds"] == [Crypto(KEY_B).current_kid, Crypto(KEY_A).current_kid]
        columns = by_column(printed["columns"])
        for name in (
            "webhook_secrets.secret_encrypted",
            "verification_clients.callback_passphrase_encrypted",
            "staff_credentials.totp_secret_encrypted",
            "document_custody.data_key_encrypted",
        ):
            assert columns[name]["rekeyed"] == 1, columns[name]
            assert columns[name]["unreadable"] == 0
        assert columns["idempotency_records.response_encrypted"]["rekeyed"] >= 1
        digests = by_column(printed["digests"])
        assert digests["api_keys.secret_hash"] == {
            "column": "api_keys.secret_hash",
            "currentKey": 0,
            "previousKeys": 2,
            "noKeyId": 0,
            "keysNotInRing": 0,
        }
        assert digests["staff_tokens.token_hash"]["previousKeys"] == 2
        async with ring.app(KEY_B, (KEY_A,)) as (client, runtime):
            await read_everything(ring, client, runtime, made, idle=None)

        # C current, B previous: A is dropped. Rotate again.
        printed = ring.rotate(KEY_C, (KEY_B,), tmp_path)
        columns = by_column(printed["columns"])
        assert columns["webhook_secrets.secret_encrypted"]["rekeyed"] == 1
        assert columns["document_custody.data_key_encrypted"]["rekeyed"] == 1
        assert all(entry["unreadable"] == 0 for entry in printed["columns"])
        digests = by_column(printed["digests"])
        # The key used under B is still verifiable; the idle one was made under A.
        assert digests["api_keys.secret_hash"]["previousKeys"] == 1
        assert digests["api_keys.secret_hash"]["keysNotInRing"] == 1
        assert digests["staff_tokens.token_hash"]["keysNotInRing"] == 1
        assert digests["verification_clients.secret_hash"]["keysNotInRing"] == 1
        async with ring.app(KEY_C, (KEY_B,)) as (client, runtime):
            await read_everything(ring, client, runtime, made, idle=401)

        # C alone: everything sealed was moved to C, the credentials in use too.
        async with ring.app(KEY_C) as (client, runtime):
            await read_everything(ring, client, runtime, made, idle=401)
            signed_in = await sign_in_with_password(client, made.staff)
            assert signed_in.status_code == 303, signed_in.text
            assert (await client.get("/dashboard")).status_code == 200
