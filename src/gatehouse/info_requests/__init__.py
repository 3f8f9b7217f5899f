"""info_requests."""

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
