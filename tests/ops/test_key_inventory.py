"""What `gatehouse keys rotate` counts (docs/operations.md, "Keys and rotation"): digests by
the key they were made under, and sealed values no key of the ring opens (reported, left as
they are, instead of stopping the rotation); and that the inventory of storage/sealed.py is
complete: every column holding a credential digest or a sealed value is listed, so that no
rotation or count can miss one."""

from __future__ import annotations

import re

import httpx
from sqlalchemy import String, Text, select, update

from gatehouse.accounts.service import create_api_key
from gatehouse.crypto import Crypto
from gatehouse.runtime import Runtime
from gatehouse.storage import tables  # noqa: F401  (registers every table)
from gatehouse.storage.base import Base
from gatehouse.storage.sealed import DIGEST_COLUMNS, SEALED_COLUMNS, count_digests, rekey_all
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import ApiKey
from gatehouse.storage.tables.webhooks import WebhookSecret
from tests.conftest import TEST_SECRET_KEY
from tests.support.factories import TenantFixture, make_staff
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


# Columns named like credentials that the key ring does not make: argon2id password hashes
# (accounts/passwords.py) verify without any key of the ring.
NOT_KEYED = {"staff_credentials.password_hash"}
# A keyed digest as Crypto.hash_secret makes it (`k<key id>$<hex>`), wherever it sits in a value
# (an erased identity is `erased:<digest>`).
KEYED_DIGEST = re.compile(r"k[0-9a-f]{6}\$[0-9a-f]{56}")


def test_every_credential_column_is_in_the_inventory() -> None:
    listed_digests = {digests.name for digests in DIGEST_COLUMNS}
    listed_sealed = {sealed.name for sealed in SEALED_COLUMNS}
    columns = [
        f"{table.name}.{column.name}"
        for table in Base.metadata.sorted_tables
        for column in table.columns
    ]
    named_digests = {name for name in columns if name.endswith("_hash")} - NOT_KEYED
    named_sealed = {name for name in columns if name.endswith("_encrypted")}
    assert named_digests - listed_digests == set(), "digest columns missing from DIGEST_COLUMNS"
    assert named_sealed - listed_sealed == set(), "sealed columns missing from SEALED_COLUMNS"
    assert set(columns) >= NOT_KEYED  # an exemption that names no column is stale


async def test_no_keyed_digest_is_stored_outside_the_inventory(
    runtime: Runtime, client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    """Whatever its name: made through the real paths (a staff member with its first token
    and invite, a staff member made through the staff API, an API key, a sign-in link), every
    stored keyed digest sits in a column of DIGEST_COLUMNS."""
    admin = await make_staff(runtime, "super_admin")
    made = await client.post(
        "/staff/v1/staff",
        json={"email": "inventory@example.test", "role": "analyst"},
        headers=admin.headers,
    )
    assert made.status_code == 201, made.text
    remember(made.json()["token"])
    remember(made.json()["inviteUrl"].rsplit("/", 1)[1])
    link = await client.post(
        "/v1/login-sessions", json={"email": "x@y.test"}, headers=tenant.headers
    )
    assert link.status_code == 201, link.text
    remember(link.json()["loginUrl"].rsplit("/", 1)[1])

    listed = {digests.name for digests in DIGEST_COLUMNS}
    found: dict[str, int] = {}
    async with runtime.db.read() as session:
        for table in Base.metadata.sorted_tables:
            text_columns = [c for c in table.columns if isinstance(c.type, String | Text)]
            if not text_columns:
                continue
            for row in (await session.execute(select(*text_columns))).all():
                for column, value in zip(text_columns, row, strict=True):
                    if isinstance(value, str) and KEYED_DIGEST.search(value):
                        name = f"{table.name}.{column.name}"
                        found[name] = found.get(name, 0) + 1
    assert set(found) - listed == set(), f"keyed digests outside DIGEST_COLUMNS: {found}"
    # The paths above did store digests, where the inventory says.
    assert {
        "staff_tokens.token_hash",
        "staff_invites.token_hash",
        "api_keys.secret_hash",
        "login_links.token_hash",
    } <= set(found)
    assert found["staff_tokens.token_hash"] == 2
