"""Erasing an applicant's personal data (docs/reference/staff-api.md §6.7): one
application, and afterwards its documents' objects in the store.

What others may use: `erase_application`, `erase_documents` (the sweep) and the `Erased` shape.
"""

from gatehouse.erasure.schemas import Erased
from gatehouse.erasure.service import erase_application, erase_documents

__all__ = [
    "Erased",
    "erase_application",
    "erase_documents",
]
