"""The event catalogue as data: `GET /v1/event-types` and the tenant console's events page
(docs/reference/tenant-api.md §5.17, docs/reference/webhooks.md §5.2).

Each type's `schema` is a JSON Schema (draft 2020-12) of its whole envelope, generated from
the same TypedDicts that describe the envelopes in /openapi.json (`EventEnvelope` and the
type's entry of `EVENT_DATA`), self-contained (its definitions under `$defs`); `example`
is the example body the API reference shows.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import TypeAdapter
from typing_extensions import TypedDict

from gatehouse.domain.event_types import EventType
from gatehouse.webhooks.schemas import EVENT_DATA, EventEnvelope, event_example

DIALECT = "https://json-schema.org/draft/2020-12/schema"

DESCRIPTIONS: dict[EventType, str] = {
    EventType.SUBMITTED: "The applicant's submission goes from not submitted to submitted.",
    EventType.STATUS_CHANGED: "The application's status changes, for any reason "
    "(`reason`: decision, info_request, pair_change or repair).",
    EventType.DECISION_PROPOSED: "Staff propose approval; the status becomes pending_approval.",
    EventType.DECISION_APPROVED: "A second staff member countersigns; the status becomes active.",
    EventType.DECISION_PROPOSAL_REJECTED: "A proposal is turned down; the status returns to "
    "what it was before.",
    EventType.DECISION_REJECTED: "The status becomes rejected.",
    EventType.DECISION_HOLD: "The status becomes hold.",
    EventType.INFO_REQUEST_RAISED: "Staff raise an information request; the status becomes "
    "needs_info.",
    EventType.INFO_REQUEST_RESPONDED: "The applicant has answered every item still owed.",
    EventType.INFO_REQUEST_CLOSED: "Staff close the information request.",
    EventType.INFO_REQUEST_REMINDER: "Staff remind the applicant of an open request; the "
    "status does not change and the event carries no link.",
    EventType.WEBHOOK_TEST: "A test send to one endpoint, whatever its filter; nothing is stored.",
}


class EventTypeInfo(TypedDict):
    """One type of the catalogue: what it means, the JSON Schema of its envelope, an example."""

    type: str
    description: str
    schema: dict[str, Any]
    example: dict[str, Any]


class EventTypeList(TypedDict):
    data: list[EventTypeInfo]


def _schema(kind: Any) -> dict[str, Any]:
    generated: dict[str, Any] = TypeAdapter(kind).json_schema(mode="serialization")
    return generated


def envelope_schema(event_type: EventType) -> dict[str, Any]:
    """The JSON Schema of `event_type`'s whole envelope: the envelope, its `type` fixed and its
    `data` the type's own shape."""
    envelope = _schema(EventEnvelope)
    data = _schema(EVENT_DATA[event_type])
    definitions = {**envelope.pop("$defs", {}), **data.pop("$defs", {})}
    properties = dict(envelope["properties"])
    properties["type"] = {"title": "Type", "type": "string", "const": str(event_type)}
    properties["data"] = data
    schema: dict[str, Any] = {
        "$schema": DIALECT,
        **envelope,
        "title": f"Event {event_type}",
        "properties": properties,
    }
    if definitions:
        schema["$defs"] = definitions
    return schema


@cache
def catalogue() -> EventTypeList:
    """Every event type, in the catalogue's order (built once; callers must not change it)."""
    return {
        "data": [
            {
                "type": str(event_type),
                "description": DESCRIPTIONS[event_type],
                "schema": envelope_schema(event_type),
                "example": event_example(event_type),
            }
            for event_type in EVENT_DATA
        ]
    }
