"""Backup and restore, rehearsed as docs/operations.md ("Backup and restore") tells operators:
the database (pg_dump, or SQLite's online backup), the key ring and the document store are
saved while Gatehouse runs; the originals are lost; the three are restored into a fresh
database and the same store location, and a fresh runtime with the same key ring reads the
application, its documents and the webhook secret back (a delivery its receiver verifies)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from sqlalchemy.engine import make_url

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from gatehouse.settings import SECRET_KEY_FILE
from gatehouse.storage.migrate import upgrade_async
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.conftest import make_settings
from tests.documents.support import applicant, pdf_bytes, png_bytes, secret_marker, upload
from tests.support.browser import SAME_ORIGIN
from tests.support.databases import POSTGRES_URL
from tests.support.factories import StaffFixture, TenantFixture, make_staff, make_tenant
from tests.support.leaks import remember
from tests.webhooks.conftest import create_endpoint, emit
from tests.webhooks.receiver import Receiver, running_receiver

pytestmark = pytest.mark.slow

SECRET_KEY = "backup-rehearsal-key-" + "k" * 40
PREVIOUS_KEY = "backup-rehearsal-previous-" + "p" * 40


@dataclass
class Made:
    tenant: TenantFixture
    staff: StaffFixture
    client_id: str
    application: dict[str, Any]
    documents: dict[str, bytes]
    endpoint: dict[str, Any]


@asynccontextmanager
async def service(
    database_url: str, store: str, **settings: Any
) -> AsyncIterator[tuple[httpx.AsyncClient, Runtime]]:
    values: dict[str, Any] = {
        "secret_key": SECRET_KEY,
        "previous_secret_keys": PREVIOUS_KEY,
        "document_store": store,
        **settings,
    }
    runtime = Runtime.build(make_settings(database_url, **values))
    transport = httpx.ASGITransport(
        app=create_app(runtime.settings, runtime), client=("10.0.0.1", 1)
    )
    try:
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", headers=SAME_ORIGIN
        ) as client:
            yield client, runtime
    finally:
        await runtime.close()


async def make_data(client: httpx.AsyncClient, runtime: Runtime, receiver: Receiver) -> Made:
    tenant = await make_tenant(runtime)
    staff = await make_staff(runtime, "analyst")
    endpoint = await create_endpoint(client, tenant, receiver.url + "/restored")
    remember(endpoint["secret"])
    receiver.secrets = [endpoint["secret"]]
    documents: dict[str, bytes] = {}
    async with httpx.AsyncClient(
        transport=client._transport, base_url="http://testserver", headers=SAME_ORIGIN
    ) as portal:
        made = await applicant(portal, tenant, email="backup@example.test", externalRef="bk-1")
        for content, kind in (
            (pdf_bytes(secret_marker("backup-pdf"), size=300_000), "application/pdf"),
            (png_bytes(secret_marker("backup-png")), "image/png"),
        ):
            answer = await upload(portal, content, kind)
            assert answer.status_code == 201, answer.text
            documents[answer.json()["documentId"]] = content
    application = await client.get(f"/v1/applications/{made.client_id}", headers=tenant.headers)
    assert application.status_code == 200, application.text
    return Made(tenant, staff, made.client_id, application.json(), documents, endpoint)


async def read_back(
    client: httpx.AsyncClient, runtime: Runtime, made: Made, receiver: Receiver
) -> None:
    application = await client.get(
        f"/v1/applications/{made.client_id}", headers=made.tenant.headers
    )
    assert application.status_code == 200, application.text
    assert application.json() == made.application
    for document_id, content in made.documents.items():
        opened = await client.get(
            f"/staff/v1/documents/{document_id}/content", headers=made.staff.headers
        )
        assert opened.status_code == 200, opened.text
        assert opened.content == content
    before = len(receiver.snapshot())
    await emit(runtime, made.tenant.tenant_id)
    stop = asyncio.Event()
    task = asyncio.create_task(DeliveryWorker(runtime, poll_seconds=0.05).run(stop))
    try:
        await asyncio.to_thread(receiver.wait_for, before + 1, 30)
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
    assert [item.verified for item in receiver.snapshot()[before:]] == [True]


def _dsn(url: str, database: str | None = None) -> str:
    parsed = make_url(url).set(drivername="postgresql")
    if database is not None:
        parsed = parsed.set(database=database)
    return parsed.render_as_string(hide_password=False)


async def _admin(sql: str) -> None:
    assert POSTGRES_URL is not None
    connection = await asyncpg.connect(_dsn(POSTGRES_URL))
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


async def tool(*args: str) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(
        subprocess.run, list(args), capture_output=True, text=True, timeout=120
    )


def _client_tools() -> tuple[str, str]:
    """pg_dump and pg_restore, or skip saying why."""
    if not POSTGRES_URL:
        pytest.skip("the suite runs on SQLite: set GATEHOUSE_TEST_DATABASE_URL to rehearse pg_dump")
    tools = (shutil.which("pg_dump"), shutil.which("pg_restore"))
    if None in tools:
        pytest.skip("pg_dump or pg_restore is not installed (PostgreSQL client package)")
    return tools[0] or "", tools[1] or ""


async def test_a_postgresql_backup_restores_into_a_fresh_database(
    fresh_database_url: str, tmp_path: Path
) -> None:
    pg_dump, pg_restore = _client_tools()
    store_dir = tmp_path / "documents"
    store = f"file://{store_dir}"
    backup = tmp_path / "backup"
    backup.mkdir()
    with running_receiver(Receiver()) as receiver:
        async with service(fresh_database_url, store) as (client, runtime):
            made = await make_data(client, runtime, receiver)
            # The backup, taken while the service runs: a consistent dump, then the store.
            dump = backup / "gatehouse.dump"
            dumped = await tool(
                pg_dump, "--format=custom", "--no-owner", "--no-privileges", f"--file={dump}",
                f"--dbname={_dsn(fresh_database_url)}",
            )  # fmt: skip
            if dumped.returncode != 0 and "version mismatch" in dumped.stderr:
                pytest.skip(f"pg_dump cannot dump this server: {dumped.stderr.strip()}")
            assert dumped.returncode == 0, dumped.stderr
            shutil.copytree(store_dir, backup / "documents")

        # Everything lost but the backup (and the key ring, kept apart from it).
        original_name = make_url(fresh_database_url).database or ""
        restored_name = original_name + "_restored"
        await _admin(f'DROP DATABASE "{original_name}" WITH (FORCE)')
        shutil.rmtree(store_dir)

        await _admin(f'CREATE DATABASE "{restored_name}"')
        try:
            restored_url = make_url(fresh_database_url).set(database=restored_name)
            url = restored_url.render_as_string(hide_password=False)
            loaded = await tool(
                pg_restore, "--no-owner", "--no-privileges", "--exit-on-error",
                f"--dbname={_dsn(url)}", str(backup / "gatehouse.dump"),
            )  # fmt: skip
            assert loaded.returncode == 0, loaded.stderr
            shutil.copytree(backup / "documents", store_dir)
            await upgrade_async(url)  # what `serve` does on start: at head already
            async with service(url, store) as (client, runtime):
                await read_back(client, runtime, made, receiver)
                assert (await client.get("/readyz")).json()["status"] == "ready"
        finally:
            await _admin(f'DROP DATABASE IF EXISTS "{restored_name}" WITH (FORCE)')


async def sqlite_backup(source: Path, target: Path) -> None:
    """The command of docs/operations.md where the sqlite3 shell is installed; else the
    same online backup through Python's sqlite3 module (what the container image offers)."""
    shell = shutil.which("sqlite3")
    if shell is None:
        with sqlite3.connect(source) as live, sqlite3.connect(target) as copy:
            live.backup(copy)
        return
    done = await tool(shell, str(source), f".backup '{target}'")
    assert done.returncode == 0, done.stderr


async def test_an_sqlite_backup_restores_with_its_generated_key(tmp_path: Path) -> None:
    """SQLite: the online backup of the file (what `sqlite3 gatehouse.db ".backup …"` does),
    the generated key file beside it, and the store."""
    live = tmp_path / "live"
    live.mkdir()
    url = f"sqlite:///{live}/gatehouse.db"
    await upgrade_async(url)
    store_dir = tmp_path / "documents"
    store = f"file://{store_dir}"
    backup = tmp_path / "backup"
    backup.mkdir()
    with running_receiver(Receiver()) as receiver:
        async with service(url, store, secret_key=None, previous_secret_keys=None) as (
            client,
            runtime,
        ):
            made = await make_data(client, runtime, receiver)
            await sqlite_backup(live / "gatehouse.db", backup / "gatehouse.db")
            shutil.copy2(live / SECRET_KEY_FILE, backup / SECRET_KEY_FILE)
            shutil.copytree(store_dir, backup / "documents")

        shutil.rmtree(live)
        shutil.rmtree(store_dir)

        elsewhere = tmp_path / "restored"
        elsewhere.mkdir(mode=0o700)
        for name in ("gatehouse.db", SECRET_KEY_FILE):
            shutil.copy2(backup / name, elsewhere / name)
        os.chmod(elsewhere / "gatehouse.db", 0o600)
        shutil.copytree(backup / "documents", store_dir)
        restored = f"sqlite:///{elsewhere}/gatehouse.db"
        await upgrade_async(restored)
        async with service(restored, store, secret_key=None, previous_secret_keys=None) as (
            client,
            runtime,
        ):
            await read_back(client, runtime, made, receiver)
