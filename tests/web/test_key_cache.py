"""The cache of verified API keys (bench/RESULTS.md: src/gatehouse/limits/credentials.py).

A cached key skips the database, a wrong secret is still refused, and a
revocation or a suspension takes effect at once: in this process, and in
another process, through the database's own signal (the triggers of migration
0014: an epoch row on SQLite, NOTIFY on PostgreSQL), whatever the writer wrote
through.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import APIRouter, FastAPI
from sqlalchemy import event, text, update
from sqlalchemy.engine import make_url
from starlette.responses import Response

from gatehouse.limits import credentials as key_cache
from gatehouse.limits.credentials import CredentialCache, credential_cache
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.storage.tables.core import ApiKey, Tenant
from gatehouse.web.dependencies import ReadApplications
from gatehouse.web.responses import json_response
from tests.conftest import make_settings
from tests.support.factories import StaffFixture, TenantFixture, make_tenant
from tests.support.probe import probe_app

PATH = "/v1/test-key-cache"
router = APIRouter()


@router.get(PATH)
async def principal_view(principal: ReadApplications) -> Response:
    return json_response(
        200,
        {
            "tenantId": principal.tenant_id,
            "tenantStatus": principal.tenant_status,
            "scopes": sorted(principal.scopes),
        },
    )


def _app(runtime: Runtime) -> FastAPI:
    app = probe_app(runtime)
    app.include_router(router)
    return app


@pytest.fixture
async def api(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=_app(runtime), client=("127.0.0.1", 50002))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


@contextmanager
def key_lookups(runtime: Runtime) -> Iterator[list[str]]:
    """Every SQL statement that reads the api_keys table while the block runs."""
    seen: list[str] = []
    engine = runtime.db.fetch_engine

    def listener(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "api_keys" in statement and statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", listener)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", listener)


async def test_a_cached_key_skips_the_database(
    runtime: Runtime, api: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    with key_lookups(runtime) as lookups:
        first = await api.get(PATH, headers=tenant.headers)
        second = await api.get(PATH, headers=tenant.headers)
        third = await api.get(PATH, headers=tenant.headers)
    assert [first.status_code, second.status_code, third.status_code] == [200, 200, 200]
    assert third.json()["tenantId"] == tenant.tenant_id
    assert len(lookups) == 1
    assert credential_cache(runtime).get(tenant.key_id) is not None


async def test_a_wrong_secret_is_refused_while_the_key_is_cached(
    api: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    assert (await api.get(PATH, headers=tenant.headers)).status_code == 200
    forged = f"service_{tenant.key_id}_{'Z' * 40}"
    response = await api.get(PATH, headers={"Authorization": f"Bearer {forged}"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert (await api.get(PATH, headers=tenant.headers)).status_code == 200


async def test_revocation_through_the_staff_api_fails_the_key_at_once(
    api: httpx.AsyncClient, tenant: TenantFixture, staff: StaffFixture
) -> None:
    for _ in range(2):
        assert (await api.get(PATH, headers=tenant.headers)).status_code == 200
    revoked = await api.post(f"/staff/v1/api-keys/{tenant.key_id}/revoke", headers=staff.headers)
    assert revoked.status_code == 200
    response = await api.get(PATH, headers=tenant.headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


async def test_suspension_and_reactivation_are_seen_at_once(
    api: httpx.AsyncClient, tenant: TenantFixture, staff: StaffFixture
) -> None:
    assert (await api.get(PATH, headers=tenant.headers)).json()["tenantStatus"] == "active"
    suspended = await api.post(
        f"/staff/v1/tenants/{tenant.tenant_id}/suspend", headers=staff.headers
    )
    assert suspended.status_code == 200
    assert (await api.get(PATH, headers=tenant.headers)).json()["tenantStatus"] == "suspended"
    reactivated = await api.post(
        f"/staff/v1/tenants/{tenant.tenant_id}/reactivate", headers=staff.headers
    )
    assert reactivated.status_code == 200
    assert (await api.get(PATH, headers=tenant.headers)).json()["tenantStatus"] == "active"


@pytest.mark.parametrize("style", ["orm", "core", "text"])
async def test_every_way_of_writing_a_revocation_is_noticed(
    runtime: Runtime, api: httpx.AsyncClient, tenant: TenantFixture, style: str
) -> None:
    assert (await api.get(PATH, headers=tenant.headers)).status_code == 200
    async with runtime.db.write() as session:
        if style == "orm":
            key = await session.get(ApiKey, tenant.key_id)
            assert key is not None
            key.status = "revoked"
        elif style == "core":
            await session.execute(
                update(ApiKey).where(ApiKey.id == tenant.key_id).values(status="revoked")
            )
        else:
            await session.execute(
                text("UPDATE api_keys SET status = 'revoked' WHERE id = :id"),
                {"id": tenant.key_id},
            )
    assert (await api.get(PATH, headers=tenant.headers)).status_code == 401


async def test_a_rolled_back_change_keeps_the_cache(
    runtime: Runtime, api: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    assert (await api.get(PATH, headers=tenant.headers)).status_code == 200

    async def rename_then_abandon() -> None:
        async with runtime.db.write() as session:
            await session.execute(
                update(Tenant).where(Tenant.id == tenant.tenant_id).values(name="Renamed")
            )
            raise RuntimeError("abandon the transaction")

    with pytest.raises(RuntimeError, match="abandon the transaction"):
        await rename_then_abandon()
    assert credential_cache(runtime).get(tenant.key_id) is not None
    # The next commit that touches no credentials does not empty the cache either.
    other = await make_tenant(runtime, with_intake=False, name="Other")
    assert credential_cache(runtime).get(tenant.key_id) is not None
    assert (await api.get(PATH, headers={"Authorization": f"Bearer {other.api_key}"})).is_success


REVOKE_IN_ANOTHER_PROCESS = """
import asyncio, sys
from sqlalchemy import update
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.storage.tables.core import ApiKey

async def main() -> None:
    url, secret_key, redis_url, key_id = sys.argv[1:5]
    settings = Settings(database_url=url, secret_key=secret_key, redis_url=redis_url or None)
    runtime = Runtime.build(settings)
    try:
        async with runtime.db.write() as session:
            await session.execute(
                update(ApiKey).where(ApiKey.id == key_id).values(status="revoked")
            )
    finally:
        await runtime.close()

asyncio.run(main())
"""


async def _revoke_in_another_process(settings: Settings, key_id: str, cwd: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        REVOKE_IN_ANOTHER_PROCESS,
        settings.database_url,
        settings.secret_key or "",
        settings.redis_url or "",
        key_id,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()


async def test_revocation_in_another_process_is_seen_at_once(
    runtime: Runtime, api: httpx.AsyncClient, tenant: TenantFixture, tmp_path: Path
) -> None:
    assert runtime.settings.redis_url is None
    for _ in range(2):
        assert (await api.get(PATH, headers=tenant.headers)).status_code == 200
    assert credential_cache(runtime).get(tenant.key_id) is not None
    await _revoke_in_another_process(runtime.settings, tenant.key_id, tmp_path)
    assert (await api.get(PATH, headers=tenant.headers)).status_code == 401


async def test_revocation_in_another_process_is_seen_at_once_through_redis(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    settings = make_settings(database_url, redis_url=redis_url)
    runtime = Runtime.build(settings)
    try:
        tenant = await make_tenant(runtime, with_intake=False)
        transport = httpx.ASGITransport(app=_app(runtime), client=("127.0.0.1", 50003))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as api:
            for _ in range(2):
                assert (await api.get(PATH, headers=tenant.headers)).status_code == 200
            cache = credential_cache(runtime)
            assert cache.get(tenant.key_id) is not None
            # Redis plays no part: the database gives the signal.
            await _revoke_in_another_process(settings, tenant.key_id, tmp_path)
            assert (await api.get(PATH, headers=tenant.headers)).status_code == 401
    finally:
        await runtime.close()


async def test_a_lookup_that_raced_an_invalidation_is_not_cached(settings: Settings) -> None:
    cache = CredentialCache(settings)
    try:
        generation = await cache.epoch()
        assert generation is not None
        cache.clear()  # a revocation committed while the lookup was reading the database
        scopes = frozenset({"applications:read"})
        cache.put(generation, "k" * 16, "h" * 64, "ten_x", scopes, "active")
        assert cache.get("k" * 16) is None
        fresh = await cache.epoch()
        assert fresh is not None
        cache.put(fresh, "k" * 16, "h" * 64, "ten_x", scopes, "active")
        assert cache.get("k" * 16) is not None
    finally:
        await cache.close()


async def test_entries_expire_after_the_ttl(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = CredentialCache(settings)
    try:
        generation = await cache.epoch()
        assert generation is not None
        cache.put(generation, "k" * 16, "h" * 64, "ten_x", frozenset(), "active")
        now = key_cache.time.monotonic()
        later = now + key_cache.TTL_SECONDS - 0.5
        monkeypatch.setattr(key_cache.time, "monotonic", lambda: later)
        assert cache.get("k" * 16) is not None
        expired = now + key_cache.TTL_SECONDS + 0.5
        monkeypatch.setattr(key_cache.time, "monotonic", lambda: expired)
        assert cache.get("k" * 16) is None
    finally:
        await cache.close()


async def test_an_unreadable_epoch_bypasses_the_cache(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if settings.database_url.startswith("sqlite"):
        # A database without the epoch row (never migrated).
        broken = settings.model_copy(update={"database_url": f"sqlite:///{tmp_path / 'no.db'}"})
    else:
        monkeypatch.setattr(key_cache, "LISTENER_CONNECT_SECONDS", 0.5)
        broken = settings.model_copy(
            update={"database_url": "postgresql://postgres@127.0.0.1:1/none"}
        )
    cache = CredentialCache(broken)
    try:
        assert await cache.epoch() is None
    finally:
        await cache.close()


async def _until_emptied(cache: CredentialCache, key_id: str) -> None:
    """A NOTIFY reaches this process's listener asynchronously: let the loop read it."""
    for _ in range(100):
        if cache.get(key_id) is None:
            return
        await asyncio.sleep(0.01)


async def test_a_write_outside_sqlalchemy_is_seen(
    runtime: Runtime, api: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    """The triggers give the signal for any writer: here the bare driver, no SQLAlchemy."""
    for _ in range(2):
        assert (await api.get(PATH, headers=tenant.headers)).status_code == 200
    cache = credential_cache(runtime)
    assert cache.get(tenant.key_id) is not None
    sql = "UPDATE api_keys SET status = 'revoked' WHERE id = "
    if runtime.db.is_sqlite:
        path = make_url(runtime.db.url).database or ""
        raw = sqlite3.connect(path, isolation_level=None)
        try:
            raw.execute(sql + "?", (tenant.key_id,))
        finally:
            raw.close()
    else:
        import asyncpg

        dsn = make_url(runtime.db.url).set(drivername="postgresql")
        raw_pg = await asyncpg.connect(dsn.render_as_string(hide_password=False))
        try:
            await raw_pg.execute(sql + "$1", tenant.key_id)
        finally:
            await raw_pg.close()
        await _until_emptied(cache, tenant.key_id)
    assert (await api.get(PATH, headers=tenant.headers)).status_code == 401


async def test_the_triggers_are_there_at_the_head(runtime: Runtime) -> None:
    """A migration that rebuilds api_keys or tenants (SQLite batch mode) drops their
    triggers: it must create them again (storage/tables/credentials.py)."""
    async with runtime.db.read() as session:
        if runtime.db.is_sqlite:
            found = await session.scalars(
                text("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            )
            expected = {
                f"credentials_{table}_{op}"
                for table in ("api_keys", "tenants")
                for op in ("update", "delete")
            }
        else:
            found = await session.scalars(
                text(
                    "SELECT tgrelid::regclass::text || ':' || tgname FROM pg_trigger "
                    "WHERE tgname = 'credentials_changed'"
                )
            )
            expected = {"api_keys:credentials_changed", "tenants:credentials_changed"}
        assert expected <= set(found)
