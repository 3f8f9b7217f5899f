"""Gatehouse behind Debian's pgbouncer in transaction mode (docs/operations.md, "Behind a
connection pooler"): `migrate`, `staff create` and `serve` with its workers all reach
PostgreSQL only through the pooler, with GATEHOUSE_DATABASE_POOLER=transaction, and the smoke
path works: a tenant, an intake and an API key made through the staff API, applications
written (with an Idempotency-Key) and read (the prepared reads included), a decision, and its
webhook delivered by the worker. Without the setting the same pooler breaks the reads (the
driver's prepared statements), which the last test shows."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from gatehouse.storage.db import Database
from gatehouse.storage.prepared import PreparedRead
from gatehouse.storage.tables.core import Tenant
from tests.support.databases import POSTGRES_URL, migrated_database
from tests.support.leaks import remember
from tests.support.pgbouncer import pgbouncer, pgbouncer_path
from tests.support.ports import free_port
from tests.support.processes import clean_env, run, started
from tests.webhooks.receiver import Receiver, running_receiver


@pytest.fixture
def pooled_url(tmp_path: Path) -> Iterator[str]:
    if not (POSTGRES_URL or "").startswith(("postgresql://", "postgres://")):
        pytest.skip("the pooler test runs on PostgreSQL (set GATEHOUSE_TEST_DATABASE_URL)")
    if pgbouncer_path() is None:
        pytest.skip("POOLER TEST SKIPPED: no pgbouncer (Debian: apt-get install pgbouncer)")
    with migrated_database(tmp_path) as direct, pgbouncer(direct) as url:
        yield url


def post(base: str, path: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    answer = httpx.post(base + path, json=body, headers=headers, timeout=30)
    assert answer.status_code in (200, 201), (path, answer.status_code, answer.text)
    return dict(answer.json())


@pytest.mark.slow
def test_serve_and_its_workers_through_pgbouncer_in_transaction_mode(
    tmp_path: Path, pooled_url: str
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = clean_env(
        database_url=pooled_url,
        database_pooler="transaction",
        db_pool_size="5",
        secret_key=secrets.token_urlsafe(32),
        public_url=base,
        webhook_allow_private_urls="true",
    )
    assert run(["migrate"], env, tmp_path).returncode == 0
    created = run(
        ["staff", "create", "--email", "pool@example.test", "--role", "super_admin"], env, tmp_path
    )
    assert created.returncode == 0, created.stderr
    token = json.loads(created.stdout)["token"]
    remember(token)
    staff = {"Authorization": f"Bearer {token}"}
    with (
        started(["serve", "--port", str(port)], env, tmp_path) as server,
        running_receiver(Receiver()) as hooks,
    ):
        server.wait_healthy(base)
        assert httpx.get(base + "/readyz").status_code == 200
        tenant_id = str(post(base, "/staff/v1/tenants", {"name": "Pooled Ltd"}, staff)["tenantId"])
        post(
            base,
            f"/staff/v1/tenants/{tenant_id}/intakes",
            {"name": "Onboarding", "checklist": [{"key": "id", "label": "ID", "kind": "document"}]},
            staff,
        )
        key = post(
            base,
            f"/staff/v1/tenants/{tenant_id}/api-keys",
            {
                "name": "pooled",
                "scopes": ["applications:write", "applications:read", "webhooks:manage"],
            },
            staff,
        )["apiKey"]
        remember(str(key))
        api = {"Authorization": f"Bearer {key}"}
        secret = post(base, "/v1/webhooks", {"url": hooks.url, "events": ["*"]}, api)["secret"]
        remember(str(secret))
        clients = []
        for number in range(6):
            body = {"email": f"owner-{number}@example.test"}
            headers = {**api, "Idempotency-Key": f"pooled-{number}"}
            first = post(base, "/v1/applications", body, headers)
            assert post(base, "/v1/applications", body, headers) == first  # replayed
            clients.append(str(first["clientId"]))
        for client_id in clients * 3:  # the reads, many times over the pooler's connections
            answer = httpx.get(f"{base}/v1/applications/{client_id}", headers=api, timeout=30)
            assert answer.status_code == 200, answer.text
        listed = httpx.get(base + "/v1/applications", headers=api, timeout=30)
        assert listed.status_code == 200
        assert len(listed.json()["data"]) == 6
        post(base, f"/staff/v1/applications/{clients[0]}/decisions", {"action": "hold"}, staff)
        # Every event goes to the endpoint; the decision's among them, delivered by the worker.
        hooks.wait_until(lambda got: any(b"decision.hold" in r.body for r in got), 60)
    errors = [line for line in server.stderr if '"level": "error"' in line]
    assert errors == []
    # No LISTEN through the pooler (it cannot work there): the delivery above was found by
    # the workers' poll (GATEHOUSE_DATABASE_DIRECT_URL unset).
    assert not [line for line in server.stderr if "LISTEN" in line]


async def _reads(url: str, *, transaction_pooler: bool) -> None:
    db = Database(url, pool_size=6, transaction_pooler=transaction_pooler)
    read = PreparedRead(select(Tenant.id).where(Tenant.name == "nobody"))
    try:
        for _ in range(20):
            await asyncio.gather(
                *(db.fetch_prepared(read) for _ in range(4)),
                *(db.fetch_all(select(Tenant.id).limit(1)) for _ in range(4)),
            )
    finally:
        await db.dispose()


def test_the_setting_is_what_makes_the_reads_work_through_the_pooler(pooled_url: str) -> None:
    asyncio.run(_reads(pooled_url, transaction_pooler=True))
    with pytest.raises(Exception, match="prepared statement"):
        asyncio.run(_reads(pooled_url, transaction_pooler=False))
