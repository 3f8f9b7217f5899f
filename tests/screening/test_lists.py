"""Loading watchlists (docs/screening.md, "Lists"): the command's output, the atomic
replace, a bad line refusing the whole load, the same content changing nothing, and the
staff list read."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import orjson
import pytest
from sqlalchemy import func, select

from gatehouse.runtime import Runtime
from gatehouse.screening.lists import BadLine, file_version
from gatehouse.storage.tables.screening import ScreeningEntity, ScreeningJob, ScreeningKey
from tests.screening.conftest import Applicant
from tests.screening.support import NAMED, PUTIN, filler, load, run_jobs, write_list
from tests.support.factories import StaffFixture
from tests.support.processes import clean_env, run


async def _count(runtime: Runtime, table: type) -> int:
    async with runtime.db.read() as session:
        return int(await session.scalar(select(func.count()).select_from(table)) or 0)


async def test_a_load_keeps_the_screened_schemata_and_lists_them(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path, analyst: StaffFixture
) -> None:
    path = write_list(tmp_path / "l.json")
    result = await load(runtime, path, "sanctions")
    assert result.entities == len(NAMED) + 200  # the vessel and the sanction are left out
    assert result.version == file_version(path)
    read = await client.get("/staff/v1/screening/lists", headers=analyst.headers)
    assert read.status_code == 200
    [entry] = read.json()["data"]
    assert entry["name"] == "sanctions"
    assert entry["entities"] == result.entities
    assert entry["version"] == result.version
    assert entry["loadedAt"].endswith("Z")
    assert await _count(runtime, ScreeningKey) > result.entities


async def test_a_bad_line_refuses_the_whole_load_and_keeps_the_old_list(
    runtime: Runtime, tmp_path: Path
) -> None:
    good = await load(runtime, write_list(tmp_path / "good.json"), "sanctions")
    before = await _count(runtime, ScreeningEntity), await _count(runtime, ScreeningKey)
    lines = [orjson.dumps(e) for e in filler(10)]
    for bad, reason in [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "not an entity object"),
        (b'{"id": "x", "schema": "Spaceship"}', "schema"),
        (b'{"id": "x", "schema": "Person", "properties": {"name": "Ann"}}', "lists of strings"),
    ]:
        path = tmp_path / "bad.json"
        path.write_bytes(b"\n".join([*lines[:4], bad, *lines[4:]]) + b"\n")
        with pytest.raises(BadLine) as refused:
            await load(runtime, path, "sanctions")
        assert refused.value.number == 5
        assert reason.lower() in str(refused.value).lower(), str(refused.value)
    after = await _count(runtime, ScreeningEntity), await _count(runtime, ScreeningKey)
    assert after == before
    async with runtime.db.read() as session:
        from gatehouse.screening.queries import list_row

        row = await list_row(session, "sanctions")
        assert row is not None
        assert row.version == good.version


async def test_the_same_content_changes_nothing_and_a_new_version_rescreens(
    runtime: Runtime, tmp_path: Path, listed: Path, applicant: Applicant
) -> None:
    await applicant(directorName="Vladimir Putin")
    await run_jobs(runtime)
    again = await load(runtime, listed)
    assert not again.changed
    assert await _count(runtime, ScreeningJob) == 0
    changed = write_list(tmp_path / "v2.json", [PUTIN, *filler(5)])
    result = await load(runtime, changed)
    assert result.changed
    assert result.entities == 6
    assert await _count(runtime, ScreeningJob) == 1  # monitoring: the application again
    assert await _count(runtime, ScreeningEntity) == 6  # the old generation is gone


@pytest.mark.slow
def test_the_command_prints_one_object_and_refuses_a_bad_line_with_exit_2(tmp_path: Path) -> None:
    env = clean_env(database_url=f"sqlite:///{tmp_path}/data/gatehouse.db")
    path = write_list(tmp_path / "l.json", [*NAMED, *filler(20)])
    done = run(["screening", "load", str(path), "--list", "ofac"], env, tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0]) == {
        "list": "ofac",
        "entities": len(NAMED) + 20,
        "version": file_version(path),
    }
    bad = tmp_path / "bad.json"
    bad.write_bytes(path.read_bytes() + b"oops\n")
    refused = run(["screening", "load", str(bad), "--list", "ofac"], env, tmp_path, timeout=300)
    assert refused.returncode == 2
    assert "line 28" in refused.stderr
    assert refused.stdout == ""


@pytest.mark.slow
async def test_loader_processes_keep_the_order_and_the_line_numbers(
    runtime: Runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gatehouse.screening import lists

    monkeypatch.setattr(lists, "PARALLEL_FROM_BYTES", 0)  # any file: loader processes
    entities = filler(5000)
    path = write_list(tmp_path / "big.json", entities)
    result = await load(runtime, path, "big")
    assert result.entities == 5000
    async with runtime.db.read() as session:
        ids = list(
            await session.scalars(select(ScreeningEntity.entity_id).order_by(ScreeningEntity.id))
        )
    assert ids == [entity["id"] for entity in entities]
    bad = tmp_path / "bad.json"
    lines = path.read_bytes().splitlines()
    bad.write_bytes(b"\n".join([*lines[:4321], b"{}", *lines[4321:]]) + b"\n")
    with pytest.raises(BadLine) as refused:
        await load(runtime, bad, "big")
    assert refused.value.number == 4322
    assert await _count(runtime, ScreeningEntity) == 5000
