"""What `gatehouse keys rotate` counts (docs/operations.md, "Keys and rotation"): digests by
the key they were made under, and sealed values no key of the ring opens (reported, left as
they are, instead of stopping the rotation)."""

from __future__ import annotations

import httpx
from sqlalchemy import select, update

from gatehouse.accounts.service import create_api_key
from gatehouse.crypto import Crypto
from gatehouse.runtime import Runtime
from gatehouse.storage.sealed import count_digests, rekey_all
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import ApiKey
from gatehouse.storage.tables.webhooks import WebhookSecret
from tests.conftest import TEST_SECRET_KEY
from tests.support.factories import TenantFixture
from tests.support.leaks import remember
from tests.webhooks.conftest import create_endpoint

OLD = "inventory-old-key-" + "o" * 40
GONE = "inventory-gone-key-" + "g" * 40


def test_a_digest_needs_rehashing_unless_made_under_the_current_key() -> None:
    ring = Crypto(TEST_SECRET_KEY, [OLD])
    assert not ring.needs_rehash(ring.hash_secret("s"))
    assert ring.needs_rehash(Crypto(OLD).hash_secret("s"))
    assert ring.needs_rehash("ab" * 32)  # made before key ids existed
    assert ring.verify_secret("s", Crypto(OLD).hash_secret("s"))


async def test_digests_are_counted_by_key(
    runtime: Runtime, client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    ring = Crypto(TEST_SECRET_KEY, [OLD])
    made = {
        "current": ring.hash_secret("one"),
        "previous": Crypto(OLD).hash_secret("two"),
        "unlabelled": "cd" * 32,
        "outside": Crypto(GONE).hash_secret("three"),
    }
    for name, digest in made.items():
        key = await create_api_key(runtime, tenant.tenant_id, name)
        remember(str(key["apiKey"]))
        async with runtime.db.write() as session:
            await session.execute(
                update(ApiKey).where(ApiKey.id == key["keyId"]).values(secret_hash=digest)
            )
    # An erased identity keeps a pseudonym made under the key of its day.
    made_link = await client.post(
        "/v1/login-sessions", json={"email": "x@y.test"}, headers=tenant.headers
    )
    assert made_link.status_code == 201, made_link.text
    remember(made_link.json()["loginUrl"].rsplit("/", 1)[1])
    async with runtime.db.write() as session:
        await session.execute(
            update(Application)
            .where(Application.id == made_link.json()["clientId"])
            .values(identity="erased:" + Crypto(OLD).hash_secret("email:x@y.test"))
        )
    counted = {count.column: count for count in await count_digests(runtime.db, ring)}
    keys = counted["api_keys.secret_hash"]
    # The tenant fixture's own key is under the current key too.
    assert (keys.current, keys.previous, keys.unlabelled, keys.outside) == (2, 1, 1, 1)
    identities = counted["applications.identity"]  # erased ones only
    assert (identities.current, identities.previous, identities.unlabelled) == (0, 1, 0)
    links = counted["login_links.token_hash"]
    assert (links.current, links.previous) == (1, 0)


async def test_a_sealed_value_no_key_opens_is_counted_not_fatal(
    runtime: Runtime, client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    endpoints = [await create_endpoint(client, tenant, f"http://127.0.0.1:9/{n}") for n in "ab"]
    for endpoint in endpoints:
        remember(endpoint["secret"])
    async with runtime.db.write() as session:
        await session.execute(
            update(WebhookSecret)
            .where(WebhookSecret.endpoint_id == endpoints[0]["id"])
            .values(secret_encrypted=Crypto(GONE).encrypt_text("lost"))
        )
    ring = Crypto(OLD, [TEST_SECRET_KEY])
    counted = {count.column: count for count in await rekey_all(runtime.db, ring)}
    secrets = counted["webhook_secrets.secret_encrypted"]
    assert (secrets.rekeyed, secrets.current, secrets.unreadable) == (1, 0, 1)
    async with runtime.db.read() as session:
        stored = {
            row.endpoint_id: row.secret_encrypted
            for row in (await session.execute(select(WebhookSecret))).scalars()
        }
    assert Crypto(GONE).decrypt_text(stored[endpoints[0]["id"]]) == "lost"  # left as it was
    assert ring.decrypt_text(stored[endpoints[1]["id"]]) == endpoints[1]["secret"]
