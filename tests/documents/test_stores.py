"""The three document stores behind one interface, each against the real thing: the test
database, a directory, and an S3-compatible server (moto's server mode)."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from gatehouse.documents.stores import ObjectMissing, check_location, open_store
from gatehouse.documents.stores.s3 import S3Store
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.documents_custody import DocumentBlob


def chunks_of(data: bytes, size: int = 100_000) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


async def read_all(store: object, key: str) -> bytes:
    return b"".join([piece async for piece in store.get(key)])  # type: ignore[attr-defined]


async def test_put_get_delete(runtime: Runtime, store_location: str) -> None:
    store = open_store(store_location, runtime.db)
    assert store.location == store_location
    data = os.urandom(3 * 1024 * 1024 + 17)
    assert await store.put("doc_a1", chunks_of(data)) == len(data)
    assert await read_all(store, "doc_a1") == data
    await store.put("doc_a1", chunks_of(b"replaced"))
    assert await read_all(store, "doc_a1") == b"replaced"
    await store.delete("doc_a1")
    with pytest.raises(ObjectMissing):
        await read_all(store, "doc_a1")
    await store.delete("doc_a1")  # deleting nothing is not an error


async def test_a_missing_object(runtime: Runtime, store_location: str) -> None:
    store = open_store(store_location, runtime.db)
    with pytest.raises(ObjectMissing):
        await read_all(store, "doc_never")


async def test_a_put_that_fails_midway_leaves_nothing(
    runtime: Runtime, store_location: str
) -> None:
    store = open_store(store_location, runtime.db)

    def failing() -> Iterator[bytes]:
        yield os.urandom(2 * 1024 * 1024)
        raise RuntimeError("the upload broke off")

    with pytest.raises(RuntimeError):
        await store.put("doc_broken", failing())
    with pytest.raises(ObjectMissing):
        await read_all(store, "doc_broken")
    if store_location.startswith("file://"):
        assert os.listdir(store_location.removeprefix("file://")) == []


async def test_names_are_document_ids(runtime: Runtime, store_location: str) -> None:
    store = open_store(store_location, runtime.db)
    for bad in ("../escape", "a/b", "", ".hidden", "x" * 200):
        with pytest.raises(ValueError, match="object names are document ids"):
            await store.put(bad, iter([b"x"]))


async def test_the_database_store_keeps_parts_of_a_mebibyte(runtime: Runtime) -> None:
    store = open_store("database", runtime.db)
    await store.put("doc_parts", chunks_of(os.urandom(2 * 1024 * 1024 + 1)))
    async with runtime.db.read() as session:
        parts = (
            await session.execute(
                select(func.count(), func.max(func.length(DocumentBlob.data))).where(
                    DocumentBlob.object_key == "doc_parts"
                )
            )
        ).one()
    assert tuple(parts) == (3, 1024 * 1024)


async def test_file_store_modes(runtime: Runtime, tmp_path: Path) -> None:
    root = tmp_path / "kept" / "documents"
    store = open_store(f"file://{root}", runtime.db)
    await store.put("doc_mode", iter([b"sealed bytes"]))
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert stat.S_IMODE((root / "doc_mode").stat().st_mode) == 0o600
    assert sorted(os.listdir(root)) == ["doc_mode"]
    # A directory made too open by hand is closed again.
    root.chmod(0o755)
    await open_store(f"file://{root}", runtime.db).put("doc_mode2", iter([b"x"]))
    assert stat.S_IMODE(root.stat().st_mode) == 0o700


async def test_s3_objects_live_under_the_prefix(runtime: Runtime, s3_location: str) -> None:
    store = open_store(s3_location, runtime.db)
    assert isinstance(store, S3Store)
    await store.put("doc_s3", iter([b"sealed ", b"bytes"]))
    import boto3

    listed = boto3.client("s3").list_objects_v2(Bucket=store.bucket)
    assert [item["Key"] for item in listed["Contents"]] == ["evidence/doc_s3"]
    body = boto3.client("s3").get_object(Bucket=store.bucket, Key="evidence/doc_s3")["Body"]
    assert body.read() == b"sealed bytes"


@pytest.mark.parametrize(
    "location",
    ["database", "file:///srv/gatehouse/documents", "s3://bucket", "s3://bucket/a/b"],
)
def test_locations(location: str) -> None:
    assert check_location(location) == location


ANY_FORM = "use database, file:///absolute/dir or s3://bucket/prefix"


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("", ANY_FORM),
        ("db", ANY_FORM),
        ("file://relative/dir", "a file store is file:///absolute/dir"),
        ("file:relative", ANY_FORM),
        ("s3://", "an S3 store is s3://bucket/prefix"),
        ("s3:///prefix", "an S3 store is s3://bucket/prefix"),
        ("ftp://x/y", ANY_FORM),
    ],
)
def test_bad_locations(location: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        check_location(location)
