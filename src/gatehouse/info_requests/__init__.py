"""Information requests (docs/case-work.md "Information requests"): raising one,
recording an applicant's answer, the moves of requests and items.

What others may use: `raise_request`, `record_answer`, the lookups of a request, and the move
tables (`REQUEST_MOVES`, `ITEM_MOVES`) the staff API documents.
"""

from gatehouse.info_requests.queries import application_of_request, load_request
from gatehouse.info_requests.service import (
    ITEM_MOVES,
    REQUEST_MOVES,
    ItemMove,
    RequestMove,
    raise_request,
    record_answer,
)

__all__ = [
    "ITEM_MOVES",
    "REQUEST_MOVES",
    "ItemMove",
    "RequestMove",
    "application_of_request",
    "load_request",
    "raise_request",
    "record_answer",
]
