"""Documents (docs/documents.md): receiving an upload (sniffed, scanned, sealed into
the store), opening one for staff, custody (shredding keys, discarding erased objects, sealing
legacy documents) and the stores.

What others may use: the upload (`receive_upload`, `Upload`), `open_document`, the custody
steps erasure and the key rotation run, `open_store`, and the sniffer's rules (branding logos).
"""

from gatehouse.documents.custody import DISCARD_BATCH, discard_erased, seal_legacy_documents, shred
from gatehouse.documents.review import open_document
from gatehouse.documents.service import Upload, receive_upload
from gatehouse.documents.sniff import EXTENSIONS, normalized, sniff
from gatehouse.documents.stores import open_store
from gatehouse.documents.thumbnails import open_thumbnail

__all__ = [
    "DISCARD_BATCH",
    "EXTENSIONS",
    "Upload",
    "discard_erased",
    "normalized",
    "open_document",
    "open_store",
    "open_thumbnail",
    "receive_upload",
    "seal_legacy_documents",
    "shred",
    "sniff",
]
