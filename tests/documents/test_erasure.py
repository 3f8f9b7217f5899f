"""Erasure reaches everything: after it, no table of the database (every column, read raw) and
no store holds the applicant's email, company name, reference, form answers, item answers,
documents' file names, document bytes or event bodies; pending deliveries of the
application's events are cancelled and the stored bodies are tombstones. On every store, on
SQLite and on PostgreSQL (GATEHOUSE_TEST_DATABASE_URL)."""

from __future__ import annotations

from pathlib import Path

import orjson
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import Event
from gatehouse.storage.tables.documents_custody import DocumentCustody
from gatehouse.storage.tables.webhooks import Delivery
from tests.documents.support import (
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
from tests.support.factories import TenantFixture, make_staff

TOMBSTONE_KEYS = {"id", "type", "occurredAt", "tenantId", "environment", "data", "redacted"}


async def test_erasure_leaves_nothing_of_the_applicant(
    database_url: str, runtime: Runtime, tenant: TenantFixture, store_location: str
) -> None:
    email = secret_marker("erase-me").decode().lower() + "@example.test"
    reference = secret_marker("ref")
    company = secret_marker("Company")
    form_answer = secret_marker("form-answer")
    item_answer = secret_marker("item-answer")
    document_marker = secret_marker("document-bytes")
    file_name = secret_marker("Jane-Doe-passport")
    markers = {
        "email": email.encode(),
        "reference": reference,
        "company": company,
        "form answer": form_answer,
        "item answer": item_answer,
        "document bytes": document_marker,
        "file name": file_name,
    }
    async with document_app(database_url, document_store=store_location) as app:
        client = app.client
        hook = await client.post(
            "/v1/webhooks",
            json={"url": "https://receiver.example.test/hooks", "events": ["*"]},
            headers=tenant.headers,
        )
        assert hook.status_code == 201, hook.text
        made = await applicant(client, tenant, email=email, externalRef=reference.decode())
        saved = await client.post(
            "/portal/api/form",
            json={"companyName": company.decode(), "fields": {"taxNumber": form_answer.decode()}},
        )
        assert saved.status_code == 200, saved.text
        first = await upload(
            client,
            pdf_bytes(document_marker, size=200_000),
            "application/pdf",
            filename=file_name.decode() + ".pdf",
        )
        second = await upload(client, png_bytes(document_marker), "image/png", document_type="id")
        assert first.status_code == second.status_code == 201
        admin = await make_staff(app.runtime, "admin")
        raised = await client.post(
            f"/staff/v1/applications/{made.client_id}/info-requests",
            json={
                "comment": "One more thing.",
                "items": [{"type": "question", "prompt": "Who are your customers?"}],
            },
            headers=admin.headers,
        )
        assert raised.status_code in (200, 201), raised.text
        request = raised.json()
        item_id = request["items"][0]["itemId"]
        answered = await client.post(
            f"/portal/api/info-requests/{request['requestId']}/items/{item_id}/answer",
            json={"answer": item_answer.decode()},
        )
        assert answered.status_code == 200, answered.text

        before = await raw_database(app.runtime)
        # The scan sees what is there: the applicant's data, in clear, before erasure...
        for name in ("email", "reference", "company", "form answer", "item answer", "file name"):
            assert holding(before, markers[name]), f"{name} not found before erasure"
        assert "events.body" in holding(before, reference)
        # ...but never the document bytes: they are sealed at rest.
        assert holding(before, document_marker) == []
        async with app.runtime.db.read() as session:
            pending = await session.scalar(
                select(Delivery.id).where(Delivery.status == "pending").limit(1)
            )
        assert pending is not None
        assert len(store_objects(store_location, app.runtime)) == (
            0 if store_location == "database" else 2
        )

        erased = await client.post(
            f"/staff/v1/applications/{made.client_id}/erase", headers=admin.headers
        )
        assert erased.status_code == 200, erased.text

        after = await raw_database(app.runtime)
        for name, marker in markers.items():
            assert holding(after, marker) == [], f"{name} survives erasure"
        assert store_objects(store_location, app.runtime) == []
        assert not any(table == "document_blobs" for table, _, _ in after)
        async with app.runtime.db.read() as session:
            assert (await session.execute(select(DocumentCustody))).first() is None
            events = list(
                (
                    await session.execute(
                        select(Event).where(Event.application_id == made.client_id)
                    )
                ).scalars()
            )
            statuses = set(
                (
                    await session.execute(
                        select(Delivery.status).where(
                            Delivery.event_id.in_([event.id for event in events])
                        )
                    )
                ).scalars()
            )
        assert events
        assert "pending" not in statuses
        assert "cancelled" in statuses
        for event in events:
            body = orjson.loads(event.body)
            assert set(body) == TOMBSTONE_KEYS
            assert body["id"] == event.id
            assert body["type"] == event.type
            assert body["data"] == {"clientId": made.client_id}
            assert body["redacted"] is True


async def test_an_object_the_store_refuses_to_delete_is_deleted_by_the_sweep(
    database_url: str, runtime: Runtime, tenant: TenantFixture, tmp_path: Path
) -> None:
    from gatehouse.sweeps import run_sweeps_once

    location = f"file://{tmp_path}/documents"
    async with document_app(database_url, document_store=location) as app:
        made = await applicant(app.client, tenant)
        uploaded = await upload(app.client, pdf_bytes(b"stubborn"), "application/pdf")
        document_id = uploaded.json()["documentId"]
        stored = tmp_path / "documents" / document_id
        # An object the store cannot remove at erasure time (a directory is not unlinked).
        stored.unlink()
        stored.mkdir()
        admin = await make_staff(app.runtime, "admin")
        erased = await app.client.post(
            f"/staff/v1/applications/{made.client_id}/erase", headers=admin.headers
        )
        assert erased.status_code == 200
        async with app.runtime.db.read() as session:
            held = await session.get(DocumentCustody, document_id)
        # Waiting for the sweep, with its data key already gone.
        assert held is not None
        assert held.data_key_encrypted is None
        gone = await app.client.get(
            f"/staff/v1/documents/{document_id}/content", headers=admin.headers
        )
        assert gone.status_code == 410
        stored.rmdir()
        stored.write_bytes(b"ciphertext left behind")
        await run_sweeps_once(app.runtime)
        assert not stored.exists()
        async with app.runtime.db.read() as session:
            assert await session.get(DocumentCustody, document_id) is None
