"""`gatehouse audit verify [--head]` and `gatehouse retention plan [--as-of]` as commands
(docs/audit-and-evidence.md; docs/operations.md, "Retention"), run as subprocesses against the
test database: a stored entry changed by hand is named, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path

import pytest

from gatehouse.records import current_head, seal_pending
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import Tenant
from tests.conftest import TEST_SECRET_KEY
from tests.records.support import tamper
from tests.records.test_chain import write_entries
from tests.support.cases import make_application
from tests.support.factories import TenantFixture
from tests.support.processes import clean_env, run

pytestmark = pytest.mark.slow


async def gatehouse(runtime: Runtime, tmp_path: Path, *args: str) -> tuple[int, list[str]]:
    env = clean_env(database_url=runtime.settings.database_url, secret_key=TEST_SECRET_KEY)
    done = await asyncio.to_thread(run, list(args), env, tmp_path)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, done.stdout.splitlines()


async def test_verify_holds_then_names_the_changed_entry(runtime: Runtime, tmp_path: Path) -> None:
    await write_entries(runtime, 5)
    await seal_pending(runtime)
    head = json.dumps(await current_head(runtime.db, runtime.crypto))
    code, lines = await gatehouse(runtime, tmp_path, "audit", "verify")
    assert code == 0
    assert json.loads(lines[0])["entries"] == 5
    code, lines = await gatehouse(runtime, tmp_path, "audit", "verify", "--head", head)
    assert code == 0
    await tamper(runtime, 4, target="tgt_rewritten")
    code, lines = await gatehouse(runtime, tmp_path, "audit", "verify")
    assert code == 1
    assert json.loads(lines[0]) == {
        "brokenAt": 4,
        "reason": "altered: the entry at seq 4 does not match its hash",
    }
    code, lines = await gatehouse(runtime, tmp_path, "audit", "verify", "--head", head)
    assert code == 1
    assert json.loads(lines[0])["brokenAt"] == 4


async def test_verify_refuses_a_forged_head(runtime: Runtime, tmp_path: Path) -> None:
    await write_entries(runtime, 2)
    await seal_pending(runtime)
    head = await current_head(runtime.db, runtime.crypto)
    forged = {**head, "hash": "a" * 64}
    code, lines = await gatehouse(
        runtime, tmp_path, "audit", "verify", "--head", json.dumps(forged)
    )
    assert code == 1
    assert json.loads(lines[0])["reason"].startswith("forged")
    code, lines = await gatehouse(runtime, tmp_path, "audit", "verify", "--head", "{not json")
    assert code == 1


async def test_retention_plan_prints_and_erases_nothing(
    runtime: Runtime, tenant: TenantFixture, tmp_path: Path
) -> None:
    async with runtime.db.write() as session:
        row = await session.get_one(Tenant, tenant.tenant_id)
        row.retention_rejected_days = 10
    case = await make_application(runtime, tenant.tenant_id, status="rejected")
    code, lines = await gatehouse(runtime, tmp_path, "retention", "plan")
    assert (code, lines) == (0, [])
    later = (runtime.now() + timedelta(days=11)).strftime("%Y-%m-%dT%H:%M:%SZ")
    code, lines = await gatehouse(runtime, tmp_path, "retention", "plan", "--as-of", later)
    assert code == 0
    planned = [json.loads(line) for line in lines]
    assert [(p["clientId"], p["rule"], p["status"]) for p in planned] == [
        (case.client_id, "rejected", "rejected")
    ]
    code, lines = await gatehouse(runtime, tmp_path, "retention", "plan", "--as-of", later)
    assert len(lines) == 1  # nothing was erased
    env = clean_env(database_url=runtime.settings.database_url, secret_key=TEST_SECRET_KEY)
    done = await asyncio.to_thread(run, ["retention", "plan", "--as-of", "soon"], env, tmp_path)
    assert done.returncode == 2
    assert "--as-of" in done.stderr
