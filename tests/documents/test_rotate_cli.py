"""`gatehouse keys rotate` and documents (docs/documents.md §7): the data keys are sealed again
under the current key, documents stored in clear before custody move into the configured store,
and afterwards the new key alone opens every document. Runs the real command."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

from sqlalchemy import select

from gatehouse.crypto import Crypto
from gatehouse.documents.custody import deposit, original_bytes
from gatehouse.documents.stores import open_store
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Document
from gatehouse.storage.tables.documents_custody import DocumentCustody
from tests.conftest import make_settings
from tests.support.cases import make_application
from tests.support.factories import make_tenant
from tests.support.processes import clean_env, run

OLD_KEY = "old-key-for-the-rotation-test-" + "a" * 30
NEW_KEY = "new-key-for-the-rotation-test-" + "b" * 30


async def test_keys_rotate_moves_and_rewraps_documents(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/gatehouse.db"
    assert (
        run(["migrate"], clean_env(database_url=url, secret_key=OLD_KEY), tmp_path).returncode == 0
    )
    sealed_bytes, legacy_bytes = b"%PDF-1.7 sealed before", b"%PDF-1.4 kept in clear"
    runtime = Runtime.build(make_settings(url, secret_key=OLD_KEY))
    try:
        tenant = await make_tenant(runtime)
        case = await make_application(runtime, tenant.tenant_id)
        sealed_id, legacy_id = new_id("doc"), new_id("doc")
        made = await deposit(
            open_store("database", runtime.db), runtime.crypto, sealed_id, io.BytesIO(sealed_bytes)
        )
        async with runtime.db.write() as session:
            for document_id, content in ((sealed_id, None), (legacy_id, legacy_bytes)):
                session.add(
                    Document(
                        id=document_id,
                        application_id=case.client_id,
                        type="statement",
                        status="uploaded",
                        content_type="application/pdf",
                        size_bytes=len(content or sealed_bytes),
                        content=content,
                        uploaded_at=runtime.now(),
                    )
                )
            await session.flush()
            session.add(made.custody_row(sealed_id, runtime.now()))
    finally:
        await runtime.close()

    store = tmp_path / "store"
    env = clean_env(
        database_url=url,
        secret_key=NEW_KEY,
        previous_secret_keys=OLD_KEY,
        document_store=f"file://{store}",
    )
    done = run(["keys", "rotate"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed["documentsSealed"] == 1
    columns = {entry["column"]: entry for entry in printed["columns"]}
    assert columns["document_custody.data_key_encrypted"] == {
        "column": "document_custody.data_key_encrypted",
        "rekeyed": 1,
        "alreadyCurrent": 1,
        "unreadable": 0,
    }
    assert os.listdir(store) == [legacy_id]

    alone = Crypto(NEW_KEY)
    runtime = Runtime.build(make_settings(url, secret_key=NEW_KEY))
    try:
        async with runtime.db.read() as session:
            held = {
                row.document_id: row
                for row in (await session.execute(select(DocumentCustody))).scalars()
            }
            cleared = await session.scalar(select(Document.content).where(Document.id == legacy_id))
        assert cleared is None
        assert held[legacy_id].store == f"file://{store}"
        for document_id, expected in ((sealed_id, sealed_bytes), (legacy_id, legacy_bytes)):
            row = held[document_id]
            assert row.data_key_encrypted is not None
            assert row.data_key_encrypted.startswith(f"g1.{alone.current_kid}.")
            opened = b"".join([p async for p in original_bytes(runtime.db, alone, row)])
            assert opened == expected
    finally:
        await runtime.close()
    again = json.loads(run(["keys", "rotate"], env, tmp_path).stdout)
    assert again["documentsSealed"] == 0
