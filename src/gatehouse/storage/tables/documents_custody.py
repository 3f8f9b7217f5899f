"""Custody of uploaded documents: where each one's ciphertext is kept, under which sealed data
key, and the ciphertext itself when the store is the database (docs/documents.md)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from gatehouse.storage.base import Base, UTCDateTime


class DocumentCustody(Base):
    """One stored document: its store, its object there and its data key.

    `data_key_encrypted` is the document's own AES-GCM key, sealed by the key ring
    (`g1.<kid>.…`; `gatehouse keys rotate` seals it again under the current key). `store` is
    the location the object was written to (`database`, `file:///…`, `s3://…`), so a document
    stays readable after GATEHOUSE_DOCUMENT_STORE changes. `sha256` is the digest of the
    original bytes, shown to staff. Erasure deletes the row and the object.
    """

    __tablename__ = "document_custody"

    document_id: Mapped[str] = mapped_column(ForeignKey("documents.id"), primary_key=True)
    store: Mapped[str] = mapped_column(String(300))
    object_key: Mapped[str] = mapped_column(String(200))
    data_key_encrypted: Mapped[str | None] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(String(64))
    stored_size: Mapped[int] = mapped_column(Integer)
    stored_at: Mapped[datetime] = mapped_column(UTCDateTime)


class DocumentBlob(Base):
    """Ciphertext kept by the `database` store, in parts of at most 1 MiB, in order."""

    __tablename__ = "document_blobs"

    object_key: Mapped[str] = mapped_column(String(200), primary_key=True)
    part: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
