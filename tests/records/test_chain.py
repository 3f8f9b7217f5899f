"""The sealed audit chain (docs/audit-and-evidence.md; docs/reference/staff-api.md §16.1-§16.3),
on SQLite and PostgreSQL: sealing, the tamper checks of `verify`, the signed head, the export."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from gatehouse.audit.context import WriteContext
from gatehouse.records import GENESIS, Verdict, seal_pending, verify_chain, verify_head
from gatehouse.records.sealing import run_sealer, seal_batch
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.workers import registered_workers
from tests.records.support import delete_sealed, docs_entry_hash, swap, tamper
from tests.support.factories import StaffFixture, TenantFixture, make_staff
from tests.support.patience import patient

DOCS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "audit-and-evidence.md"


def body(verdict: Verdict) -> dict[str, Any]:
    return dict(verdict.body)


async def write_entries(runtime: Runtime, count: int, *, actor: str = "cli") -> None:
    """`count` audit entries, as writers add them (unsealed), one transaction each."""
    for number in range(count):
        ctx = WriteContext.system(actor, runtime.now())
        async with runtime.db.write() as session:
            ctx.audit(session, "test.entry", f"tgt_{number}", tenant_id="ten_é✓")


async def stored(runtime: Runtime) -> list[AuditEntry]:
    async with runtime.db.read() as session:
        rows = await session.scalars(select(AuditEntry).order_by(AuditEntry.seq))
        return list(rows.all())


async def test_writers_leave_entries_unsealed_and_the_sealer_links_them_in_order(
    runtime: Runtime,
) -> None:
    await write_entries(runtime, 7)
    assert {entry.seq for entry in await stored(runtime)} == {None}
    assert await seal_pending(runtime) == 7
    entries = await stored(runtime)
    assert [entry.seq for entry in entries] == list(range(1, 8))
    prev = GENESIS
    for entry in entries:  # recomputed by the docs' own lines, not the code's
        view = {
            "seq": entry.seq,
            "at": entry.at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{entry.at.microsecond // 1000:03d}Z",
            "actor": entry.actor,
            "action": entry.action,
            "target": entry.target,
            "tenantId": entry.tenant_id,
            "applicationId": entry.application_id,
            "requestId": entry.request_id,
        }
        assert entry.hash == docs_entry_hash(prev, view)
        prev = entry.hash
    verdict = await verify_chain(runtime.db)
    assert verdict.intact
    assert body(verdict) == {"entries": 7, "head": {"seq": 7, "hash": prev}}
    # More entries continue the chain from its head.
    await write_entries(runtime, 2)
    assert await seal_pending(runtime) == 2
    assert [entry.seq for entry in await stored(runtime)] == list(range(1, 10))
    assert (await verify_chain(runtime.db)).intact


async def test_an_empty_chain_verifies(runtime: Runtime) -> None:
    verdict = await verify_chain(runtime.db)
    assert verdict.intact
    assert body(verdict) == {"entries": 0, "head": {"seq": 0, "hash": GENESIS}}


async def test_sealers_running_at_once_never_number_an_entry_twice(runtime: Runtime) -> None:
    await write_entries(runtime, 40)
    results = await asyncio.gather(*(seal_batch(runtime.db, runtime.now(), 7) for _ in range(8)))
    assert sum(results) == 40
    assert [entry.seq for entry in await stored(runtime)] == list(range(1, 41))
    assert (await verify_chain(runtime.db)).intact


@pytest.mark.parametrize(
    ("change", "broken_at", "reason"),
    [
        ({"action": "application.erase"}, 3, "altered"),
        ({"actor": "staff:stf_someone_else"}, 3, "altered"),
        ({"tenant_id": None}, 3, "altered"),
        ({"hash": "f" * 64}, 3, "altered"),
    ],
)
async def test_verify_names_the_altered_entry(
    runtime: Runtime, change: dict[str, object], broken_at: int, reason: str
) -> None:
    await write_entries(runtime, 6)
    await seal_pending(runtime)
    await tamper(runtime, 3, **change)
    verdict = await verify_chain(runtime.db)
    assert not verdict.intact
    assert body(verdict)["brokenAt"] == broken_at
    assert body(verdict)["reason"].startswith(reason)


async def test_verify_names_a_removed_entry_and_a_cut_end(runtime: Runtime) -> None:
    await write_entries(runtime, 6)
    await seal_pending(runtime)
    await delete_sealed(runtime, 6)
    verdict = await verify_chain(runtime.db)
    assert body(verdict) == {"brokenAt": 6, "reason": body(verdict)["reason"]}
    assert body(verdict)["reason"].startswith("missing")
    await delete_sealed(runtime, 2)
    verdict = await verify_chain(runtime.db)
    assert body(verdict)["brokenAt"] == 2
    assert body(verdict)["reason"].startswith("missing")


async def test_verify_names_reordered_entries(runtime: Runtime) -> None:
    await write_entries(runtime, 6)
    await seal_pending(runtime)
    await swap(runtime, 4, 5)
    verdict = await verify_chain(runtime.db)
    assert not verdict.intact
    assert body(verdict) == {
        "brokenAt": 4,
        "reason": "moved: the entry at seq 4 was sealed as seq 5",
    }


async def test_the_signed_head_proves_the_chain_up_to_it(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    await write_entries(runtime, 4)
    await seal_pending(runtime)
    answer = await client.get("/staff/v1/audit/head", headers=staff.headers)
    assert answer.status_code == 200, answer.text
    head = answer.json()
    assert set(head) == {"seq", "hash", "at", "signature"}
    assert head["seq"] >= 4  # the staff member's creation is audited too
    kept = json.dumps(head)
    # Later entries do not spoil an older head.
    await write_entries(runtime, 3)
    await seal_pending(runtime)
    verdict = await verify_head(runtime.db, runtime.crypto, kept)
    assert verdict.intact, body(verdict)
    assert body(verdict)["head"] == {"seq": head["seq"], "hash": head["hash"]}
    # A forged head: another hash, another seq, a made-up signature, not JSON at all.
    for forged in (
        {**head, "hash": "0" * 63 + "1"},
        {**head, "seq": head["seq"] + 1},
        {
            **head,
            "signature": head["signature"][:-1] + ("0" if head["signature"][-1] != "0" else "1"),
        },
        {**head, "signature": "zzzzzz." + "0" * 64},
    ):
        verdict = await verify_head(runtime.db, runtime.crypto, json.dumps(forged))
        assert not verdict.intact
        assert body(verdict)["reason"].startswith("forged")
    assert not (await verify_head(runtime.db, runtime.crypto, "not json")).intact
    # A rewritten chain: the head's entry no longer holds its hash.
    await tamper(runtime, 2, action="rewritten")
    verdict = await verify_head(runtime.db, runtime.crypto, kept)
    assert not verdict.intact
    assert body(verdict)["brokenAt"] == 2


async def test_head_and_export_need_an_admin(client: httpx.AsyncClient, runtime: Runtime) -> None:
    mlro = await make_staff(runtime, "mlro")
    for path in ("/staff/v1/audit/head", "/staff/v1/audit/export"):
        answer = await client.get(path, headers=mlro.headers)
        assert answer.status_code == 403, path


async def test_the_export_holds_the_chain_and_ends_with_the_head(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture, tenant: TenantFixture
) -> None:
    await write_entries(runtime, 5)
    await seal_pending(runtime)
    await write_entries(runtime, 2)  # not sealed yet: not exported
    answer = await client.get("/staff/v1/audit/export", headers=staff.headers)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in answer.text.splitlines()]
    head = lines.pop()["head"]
    prev = GENESIS
    for line in lines:  # the docs' check of a full export
        assert line["prevHash"] == prev
        assert docs_entry_hash(prev, line) == line["hash"]
        prev = line["hash"]
    assert [line["seq"] for line in lines] == list(range(1, head["seq"] + 1))
    assert head["hash"] == prev
    async with runtime.db.read() as session:
        unsealed = await session.scalar(
            select(func.count()).select_from(AuditEntry).where(AuditEntry.seq.is_(None))
        )
    assert unsealed == 2
    # One tenant's entries: each line still proves itself by its own prevHash.
    answer = await client.get(
        "/staff/v1/audit/export", params={"tenantId": "ten_é✓"}, headers=staff.headers
    )
    lines = [json.loads(line) for line in answer.text.splitlines()][:-1]
    assert len(lines) == 5
    assert all(docs_entry_hash(line["prevHash"], line) == line["hash"] for line in lines)
    assert all(line["tenantId"] == "ten_é✓" for line in lines)


@pytest.mark.parametrize(
    "params", [{"from": "yesterday"}, {"to": "2026-13-01T00:00:00Z"}, {"tenantId": ""}, {"x": "1"}]
)
async def test_export_refuses_bad_filters(
    client: httpx.AsyncClient, staff: StaffFixture, params: dict[str, str]
) -> None:
    answer = await client.get("/staff/v1/audit/export", params=params, headers=staff.headers)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid-argument"


async def test_staff_audit_lists_show_seq_and_hash_once_sealed(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture, tenant: TenantFixture
) -> None:
    path = f"/staff/v1/tenants/{tenant.tenant_id}/audit"
    renamed = await client.patch(
        f"/staff/v1/tenants/{tenant.tenant_id}", json={"name": "Renamed"}, headers=staff.headers
    )
    assert renamed.status_code == 200
    before = (await client.get(path, headers=staff.headers)).json()["data"]
    assert before
    assert all(e["seq"] is None and e["hash"] is None for e in before)
    await seal_pending(runtime)
    after = (await client.get(path, headers=staff.headers)).json()["data"]
    assert all(isinstance(e["seq"], int) and len(e["hash"]) == 64 for e in after)


async def test_the_workers_seal_what_writers_commit(runtime: Runtime) -> None:
    """The sealer runs among the workers and seals new entries without being asked."""
    assert "audit_sealer" in [name for name, _ in registered_workers()]
    stop = asyncio.Event()
    worker = asyncio.create_task(run_sealer(runtime, stop))
    try:
        await write_entries(runtime, 3)
        deadline = asyncio.get_running_loop().time() + patient(10)
        while asyncio.get_running_loop().time() < deadline:
            if all(entry.seq is not None for entry in await stored(runtime)):
                break
            await asyncio.sleep(0.2)
        assert [entry.seq for entry in await stored(runtime)] == [1, 2, 3]
    finally:
        stop.set()
        await worker


async def test_the_docs_lines_recompute_a_full_export(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture, tmp_path: Path
) -> None:
    """The Python block of docs/audit-and-evidence.md, run as it is on an export."""
    page = DOCS_PAGE.read_text()
    script = page.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "check.py").write_text(script)
    await write_entries(runtime, 6)
    await seal_pending(runtime)
    export = await client.get("/staff/v1/audit/export", headers=staff.headers)
    (tmp_path / "audit.ndjson").write_bytes(export.content)
    head = json.loads(export.text.splitlines()[-1])["head"]
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, str(tmp_path / "check.py"), str(tmp_path / "audit.ndjson")],
        capture_output=True,
        text=True,
    )
    assert done.stdout.strip() == f"head {head['seq']} True", done.stderr
    # An altered line is caught by the same lines.
    lines = export.text.splitlines()
    lines[2] = lines[2].replace("test.entry", "test.entrx")
    (tmp_path / "audit.ndjson").write_text("\n".join(lines) + "\n")
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, str(tmp_path / "check.py"), str(tmp_path / "audit.ndjson")],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "seq 3: altered" in done.stderr
