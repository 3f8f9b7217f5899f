"""Uploads through the portal and review through the staff API, on every store: honest
uploads only, sealed at rest, opened to the original bytes with the documented headers and an
audit entry; refusals store nothing; a scanner detection or an unreachable scanner refuses;
altered objects and missing keys fail cleanly; documents from before custody stay readable and
move into the store; key rotation re-wraps data keys."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from sqlalchemy import func, select

from gatehouse.crypto import Crypto
from gatehouse.documents.custody import seal_legacy_documents
from gatehouse.documents.stores import open_store
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.sealed import rekey_all
from gatehouse.storage.tables.applications import Document
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.storage.tables.documents_custody import DocumentBlob, DocumentCustody
from tests.conftest import TEST_SECRET_KEY
from tests.documents.support import (
    DocumentApp,
    applicant,
    document_app,
    holding,
    pdf_bytes,
    png_bytes,
    raw_database,
    secret_marker,
    store_objects,
    upload,
)
from tests.support.document_services import EICAR, Clamd, free_port
from tests.support.factories import TenantFixture, make_staff


async def counts(runtime: Runtime) -> tuple[int, int, int]:
    async with runtime.db.read() as session:
        documents = await session.scalar(select(func.count()).select_from(Document))
        held = await session.scalar(select(func.count()).select_from(DocumentCustody))
        blobs = await session.scalar(select(func.count()).select_from(DocumentBlob))
    return int(documents or 0), int(held or 0), int(blobs or 0)


async def views_of(runtime: Runtime, document_id: str) -> list[str]:
    async with runtime.db.read() as session:
        rows = await session.execute(
            select(AuditEntry.actor).where(
                AuditEntry.action == "document.view", AuditEntry.target == document_id
            )
        )
        return list(rows.scalars())


async def test_an_upload_is_sealed_and_opens_to_the_original(
    database_url: str, runtime: Runtime, tenant: TenantFixture, store_location: str
) -> None:
    marker = secret_marker("sealed-evidence")
    content = pdf_bytes(marker, size=300_000)
    async with document_app(database_url, document_store=store_location) as app:
        made = await applicant(app.client, tenant)
        answer = await upload(app.client, content, "application/pdf", filename="my statement.pdf")
        assert answer.status_code == 201, answer.text
        document = answer.json()
        assert document["contentType"] == "application/pdf"
        assert document["sizeBytes"] == len(content)
        document_id = document["documentId"]

        # At rest: neither the database nor the store holds the bytes in clear.
        assert holding(await raw_database(app.runtime), marker) == []
        objects = store_objects(store_location, app.runtime)
        assert all(marker not in stored for stored in objects)
        assert len(objects) == (0 if store_location == "database" else 1)
        async with app.runtime.db.read() as session:
            held = await session.get(DocumentCustody, document_id)
            stored = await session.get(Document, document_id)
        assert held is not None
        assert stored is not None
        assert stored.content is None
        assert held.store == store_location
        assert held.sha256 == hashlib.sha256(content).hexdigest()
        assert held.data_key_encrypted is not None
        assert held.data_key_encrypted.startswith(f"g1.{app.runtime.crypto.current_kid}.")

        analyst = await make_staff(app.runtime, "analyst")
        opened = await app.client.get(
            f"/staff/v1/documents/{document_id}/content", headers=analyst.headers
        )
        assert opened.status_code == 200
        assert opened.content == content
        assert opened.headers["content-type"] == "application/pdf"
        assert opened.headers["content-disposition"] == f'attachment; filename="{document_id}.pdf"'
        assert opened.headers["x-content-type-options"] == "nosniff"
        assert opened.headers["cache-control"] == "no-store"
        assert await views_of(app.runtime, document_id) == [f"staff:{analyst.staff_id}"]
        assert made.client_id


@pytest.mark.parametrize(
    ("content", "declared", "field", "status"),
    [
        (png_bytes(), "application/pdf", "file", 400),  # a PNG sent as a PDF
        (pdf_bytes(), "image/png", "file", 400),  # a PDF sent as a PNG
        (b"just some words", "image/png", "file", 400),  # no known magic bytes
        (b"<html><script>alert(1)</script></html>", "image/jpeg", "file", 400),
        (b"GIF89a" + bytes(40), "image/gif", "file", 400),  # a type not accepted
        (b"", "application/pdf", "file", 400),  # empty
        (pdf_bytes(size=6000), "application/pdf", "file", 413),  # over the limit
    ],
    ids=["png-as-pdf", "pdf-as-png", "unknown", "html-as-jpeg", "gif", "empty", "too-large"],
)
async def test_refused_uploads_store_nothing(
    database_url: str,
    runtime: Runtime,
    tenant: TenantFixture,
    store_location: str,
    content: bytes,
    declared: str,
    field: str,
    status: int,
) -> None:
    async with document_app(
        database_url, document_store=store_location, upload_max_bytes=5000
    ) as app:
        await applicant(app.client, tenant)
        answer = await upload(app.client, content, declared)
        assert answer.status_code == status, answer.text
        error = answer.json()["error"]
        assert error["code"] == "invalid-argument"
        assert error["details"][0]["field"] == field
        assert await counts(app.runtime) == (0, 0, 0)
        assert store_objects(store_location, app.runtime) == []


async def test_a_missing_file_or_type_is_refused(
    database_url: str, runtime: Runtime, tenant: TenantFixture
) -> None:
    async with document_app(database_url) as app:
        await applicant(app.client, tenant)
        no_file = await app.client.post("/portal/api/documents", data={"type": "passport"})
        assert no_file.status_code == 400
        assert no_file.json()["error"]["details"][0]["field"] in ("file", "body")
        no_type = await app.client.post(
            "/portal/api/documents", files={"file": ("a.png", png_bytes(), "image/png")}
        )
        assert no_type.status_code == 400
        assert no_type.json()["error"]["details"][0]["field"] == "type"
        assert await counts(app.runtime) == (0, 0, 0)


async def test_every_accepted_kind(
    database_url: str, runtime: Runtime, tenant: TenantFixture
) -> None:
    samples = {
        "application/pdf": pdf_bytes(),
        "image/png": png_bytes(),
        "image/jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01" + bytes(64) + b"\xff\xd9",
        "image/webp": b"RIFF\x24\x00\x00\x00WEBPVP8 " + bytes(40),
    }
    async with document_app(database_url) as app:
        await applicant(app.client, tenant)
        analyst = await make_staff(app.runtime, "analyst")
        for declared, content in samples.items():
            answer = await upload(app.client, content, declared + "; charset=binary")
            assert answer.status_code == 201, answer.text
            document_id = answer.json()["documentId"]
            opened = await app.client.get(
                f"/staff/v1/documents/{document_id}/content", headers=analyst.headers
            )
            assert opened.content == content
            assert opened.headers["content-type"] == declared
            extension = {"application/pdf": "pdf", "image/png": "png"}.get(
                declared, {"image/jpeg": "jpg", "image/webp": "webp"}.get(declared)
            )
            assert f'filename="{document_id}.{extension}"' in opened.headers["content-disposition"]


async def test_a_detection_is_refused_and_nothing_kept(
    database_url: str, runtime: Runtime, tenant: TenantFixture, clamd: Clamd, tmp_path: Path
) -> None:
    location = f"file://{tmp_path}/documents"
    async with document_app(
        database_url, document_store=location, clamd_address=clamd.tcp_address
    ) as app:
        await applicant(app.client, tenant)
        infected = await upload(app.client, pdf_bytes(EICAR), "application/pdf")
        assert infected.status_code == 400
        assert infected.json()["error"]["code"] == "invalid-argument"
        assert infected.json()["error"]["details"][0]["field"] == "file"
        assert await counts(app.runtime) == (0, 0, 0)
        assert store_objects(location, app.runtime) == []
        clean = await upload(app.client, pdf_bytes(b"a clean statement"), "application/pdf")
        assert clean.status_code == 201
    async with document_app(database_url, clamd_address=clamd.socket_path) as app:
        await applicant(app.client, tenant, email="second@example.test", externalRef="c-2")
        infected = await upload(app.client, pdf_bytes(EICAR, size=200_000), "application/pdf")
        assert infected.status_code == 400
        assert (await counts(app.runtime))[0] == 1


async def test_an_unreachable_scanner_refuses_everything(
    database_url: str, runtime: Runtime, tenant: TenantFixture
) -> None:
    async with document_app(database_url, clamd_address=f"127.0.0.1:{free_port()}") as app:
        await applicant(app.client, tenant)
        answer = await upload(app.client, pdf_bytes(b"clean"), "application/pdf")
        assert answer.status_code == 503
        assert answer.json()["error"]["code"] == "unavailable"
        assert answer.headers["retry-after"] == "30"
        assert await counts(app.runtime) == (0, 0, 0)


async def uploaded(app: DocumentApp, tenant: TenantFixture, content: bytes) -> str:
    await applicant(app.client, tenant)
    answer = await upload(app.client, content, "application/pdf")
    assert answer.status_code == 201, answer.text
    return str(answer.json()["documentId"])


async def test_the_content_route(
    database_url: str, runtime: Runtime, tenant: TenantFixture
) -> None:
    async with document_app(database_url) as app:
        document_id = await uploaded(app, tenant, pdf_bytes(b"route rules"))
        analyst = await make_staff(app.runtime, "analyst")
        admin = await make_staff(app.runtime, "admin")
        path = f"/staff/v1/documents/{document_id}/content"
        assert (await app.client.get(path)).status_code == 401
        assert (await app.client.get(path, headers=tenant.headers)).status_code == 401
        unknown = await app.client.get(
            "/staff/v1/documents/doc_unknown/content", headers=analyst.headers
        )
        assert unknown.status_code == 404
        assert (await app.client.get(path, headers=admin.headers)).status_code == 200
        async with app.runtime.db.read() as session:
            application_id = await session.scalar(
                select(Document.application_id).where(Document.id == document_id)
            )
        erased = await app.client.post(
            f"/staff/v1/applications/{application_id}/erase", headers=admin.headers
        )
        assert erased.status_code == 200
        gone = await app.client.get(path, headers=analyst.headers)
        assert gone.status_code == 410
        assert gone.json()["error"]["code"] == "failed-precondition"
        assert await views_of(app.runtime, document_id) == [f"staff:{admin.staff_id}"]


async def test_an_altered_object_fails_cleanly(
    database_url: str, runtime: Runtime, tenant: TenantFixture, tmp_path: Path
) -> None:
    location = f"file://{tmp_path}/documents"
    async with document_app(database_url, document_store=location) as app:
        document_id = await uploaded(app, tenant, pdf_bytes(b"altered"))
        analyst = await make_staff(app.runtime, "analyst")
        stored = tmp_path / "documents" / document_id
        altered = bytearray(stored.read_bytes())
        altered[20] ^= 0x01
        stored.write_bytes(bytes(altered))
        answer = await app.client.get(
            f"/staff/v1/documents/{document_id}/content", headers=analyst.headers
        )
        assert answer.status_code == 500
        assert answer.json()["error"]["code"] == "internal"
        stored.unlink()
        missing = await app.client.get(
            f"/staff/v1/documents/{document_id}/content", headers=analyst.headers
        )
        assert missing.status_code == 500


async def test_a_key_removed_from_the_ring_fails_cleanly(
    database_url: str, runtime: Runtime, tenant: TenantFixture
) -> None:
    async with document_app(database_url) as app:
        document_id = await uploaded(app, tenant, pdf_bytes(b"keyed"))
    async with document_app(database_url, secret_key="another-key-" + "x" * 40) as other:
        analyst = await make_staff(other.runtime, "analyst")
        answer = await other.client.get(
            f"/staff/v1/documents/{document_id}/content", headers=analyst.headers
        )
        assert answer.status_code == 500
        assert answer.json()["error"]["code"] == "internal"


async def test_rotation_rewraps_data_keys(
    database_url: str, runtime: Runtime, tenant: TenantFixture
) -> None:
    content = pdf_bytes(b"rotated", size=150_000)
    async with document_app(database_url) as app:
        document_id = await uploaded(app, tenant, content)
    new_key = "rotated-key-" + "y" * 40
    rotated = Crypto(new_key, [TEST_SECRET_KEY])
    counted = {c.column: c for c in await rekey_all(runtime.db, rotated)}
    assert counted["document_custody.data_key_encrypted"].rekeyed == 1
    async with runtime.db.read() as session:
        held = await session.get(DocumentCustody, document_id)
    assert held is not None
    assert held.data_key_encrypted is not None
    assert held.data_key_encrypted.startswith(f"g1.{rotated.current_kid}.")
    # Only the new key is needed from now on.
    from gatehouse.documents.custody import original_bytes

    alone = Crypto(new_key)
    opened = b"".join([piece async for piece in original_bytes(runtime.db, alone, held)])
    assert opened == content


async def test_documents_from_before_custody(
    database_url: str, runtime: Runtime, tenant: TenantFixture, tmp_path: Path
) -> None:
    content = png_bytes(b"legacy")
    async with document_app(database_url) as app:
        await uploaded(app, tenant, pdf_bytes(b"current"))
        async with app.runtime.db.write() as session:
            application_id = await session.scalar(select(Document.application_id))
            legacy_id = new_id("doc")
            session.add(
                Document(
                    id=legacy_id,
                    application_id=application_id,
                    type="passport",
                    status="uploaded",
                    content_type="image/png",
                    size_bytes=len(content),
                    content=content,
                    uploaded_at=app.runtime.now(),
                )
            )
        analyst = await make_staff(app.runtime, "analyst")
        path = f"/staff/v1/documents/{legacy_id}/content"
        before = await app.client.get(path, headers=analyst.headers)
        assert before.status_code == 200
        assert before.content == content
        assert before.headers["content-type"] == "image/png"

        location = f"file://{tmp_path}/moved"
        store = open_store(location, app.runtime.db)
        moved = await seal_legacy_documents(
            app.runtime.db, app.runtime.crypto, store, app.runtime.now()
        )
        assert moved == 1
        assert (
            await seal_legacy_documents(
                app.runtime.db, app.runtime.crypto, store, app.runtime.now()
            )
            == 0
        )
        async with app.runtime.db.read() as session:
            row = await session.get(Document, legacy_id)
            held = await session.get(DocumentCustody, legacy_id)
        assert row is not None
        assert row.content is None
        assert held is not None
        assert held.store == location
        assert os.listdir(tmp_path / "moved") == [legacy_id]
        after = await app.client.get(path, headers=analyst.headers)
        assert after.content == content
        assert holding(await raw_database(app.runtime), b"legacy") == []
