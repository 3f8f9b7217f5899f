"""documents."""

from gatehouse.documents.custody import DISCARD_BATCH, discard_erased, seal_legacy_documents, shred
from gatehouse.documents.review import open_document
from gatehouse.documents.service import Upload, receive_upload
from gatehouse.documents.sniff import EXTENSIONS, normalized, sniff
from gatehouse.documents.stores import open_store

__all__ = [
    "DISCARD_BATCH",
    "EXTENSIONS",
    "Upload",
    "discard_erased",
    "normalized",
    "open_document",
    "open_store",
    "receive_upload",
    "seal_legacy_documents",
    "shred",
    "sniff",
]
