"""Helpers of the document tests: an app per store, uploads through the portal, sample files,
and reading the raw contents of the database and of a store."""

from __future__ import annotations

import base64
import os
import secrets
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import inspect, literal_column, select, table

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from tests.conftest import make_settings
from tests.portal.conftest import Provisioned, provision, sign_in
from tests.support.browser import SAME_ORIGIN
from tests.support.factories import TenantFixture
from tests.support.leaks import remember


def png_bytes(marker: bytes = b"") -> bytes:
    """A real 2x2 PNG, with `marker` in a text chunk."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = (2).to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    pixels = zlib.compress(b"".join(b"\x00" + b"\xc8\x1e\x1e" * 2 for _ in range(2)))
    text_chunk = chunk(b"tEXt", b"Comment\x00" + marker) if marker else b""
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + text_chunk
        + chunk(b"IDAT", pixels)
        + chunk(b"IEND", b"")
    )


def pdf_bytes(marker: bytes = b"", size: int = 0) -> bytes:
    """A small PDF whose body holds `marker`, padded with a comment to about `size` bytes."""
    body = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\n% " + marker + b"\n"
    padding = max(0, size - len(body) - 7)
    return body + b"%" + os.urandom(padding // 2).hex().encode()[:padding] + b"\n%%EOF\n"


def secret_marker(name: str) -> bytes:
    """A unique marker that no log line may hold (the session's leak check)."""
    marker = f"{name}-{secrets.token_hex(8)}"
    remember(marker)
    remember(base64.b64encode(marker.encode()).decode())
    return marker.encode()


@dataclass
class DocumentApp:
    runtime: Runtime
    client: httpx.AsyncClient


@asynccontextmanager
async def document_app(database_url: str, **settings: Any) -> AsyncIterator[DocumentApp]:
    """An app over the test database with these settings (the store, clamd, limits)."""
    runtime = Runtime.build(make_settings(database_url, **settings))
    try:
        app = create_app(runtime.settings, runtime)
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", headers=SAME_ORIGIN
        ) as client:
            yield DocumentApp(runtime, client)
    finally:
        await runtime.close()


async def applicant(client: httpx.AsyncClient, tenant: TenantFixture, **body: Any) -> Provisioned:
    """A provisioned application whose applicant is signed in on `client`."""
    made = await provision(client, tenant, **body)
    await sign_in(client, made.token)
    return made


async def upload(
    client: httpx.AsyncClient,
    content: bytes,
    declared: str,
    *,
    document_type: str = "passport",
    filename: str = "evidence.bin",
) -> httpx.Response:
    return await client.post(
        "/portal/api/documents",
        data={"type": document_type},
        files={"file": (filename, content, declared)},
    )


async def raw_database(runtime: Runtime) -> list[tuple[str, str, bytes]]:
    """(table, column, value as bytes) for every non-null value of every table, read raw."""

    def tables(connection: Any) -> list[str]:
        return sorted(inspect(connection).get_table_names())

    found: list[tuple[str, str, bytes]] = []
    async with runtime.db.read() as session:
        connection = await session.connection()
        for name in await connection.run_sync(tables):
            # table() quotes the name as the dialect wants.
            result = await session.execute(select(literal_column("*")).select_from(table(name)))
            columns = list(result.keys())
            for row in result.all():
                for column, value in zip(columns, row, strict=True):
                    if value is None:
                        continue
                    if isinstance(value, (bytes, bytearray, memoryview)):
                        raw = bytes(value)
                    else:
                        raw = str(value).encode()
                    found.append((name, column, raw))
    return found


def holding(values: list[tuple[str, str, bytes]], marker: bytes) -> list[str]:
    """`table.column` of every raw value that contains `marker`."""
    return sorted({f"{table}.{column}" for table, column, raw in values if marker in raw})


def store_objects(location: str, runtime: Runtime) -> list[bytes]:
    """Every object a file or S3 store holds (the database store's are in `raw_database`)."""
    if location.startswith("file://"):
        root = Path(location.removeprefix("file://"))
        if not root.exists():
            return []
        return [path.read_bytes() for path in sorted(root.iterdir())]
    if location.startswith("s3://"):
        import boto3

        bucket, _, prefix = location.removeprefix("s3://").partition("/")
        s3 = boto3.client("s3")
        listed = s3.list_objects_v2(Bucket=bucket, Prefix=prefix)
        return [
            s3.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
            for item in listed.get("Contents", [])
        ]
    return []
