"""erasure."""

from gatehouse.erasure.schemas import Erased
from gatehouse.erasure.service import erase_application, erase_documents

__all__ = [
    "Erased",
    "erase_application",
    "erase_documents",
]
