"""Typed `data` of each webhook event type (README: "Typed events").

One frozen dataclass per event type of the catalogue. Each keeps the whole
`data` object in `raw` and the fields this version does not name in `extra`;
an event type this version does not know becomes `UnknownEventData`, never an
error. Status values are kept as sent, and only exactly `active` is approval.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Self

from gatehouse_client._fields import (
    ApplicationStatus,
    Model,
    int_of,
    list_of_values,
    models_of,
    status_of,
    text_of,
)
from gatehouse_client._models import InfoRequestItem

__all__ = [
    "EVENT_DATA_TYPES",
    "ApplicationEventData",
    "ApplicationStatusChanged",
    "ApplicationSubmitted",
    "DecisionApproved",
    "DecisionEventData",
    "DecisionHold",
    "DecisionProposalRejected",
    "DecisionProposed",
    "DecisionRejected",
    "EventData",
    "InfoRequestClosed",
    "InfoRequestEventData",
    "InfoRequestRaised",
    "InfoRequestReminder",
    "InfoRequestResponded",
    "UnknownEventData",
    "WebhookTest",
    "parse_event_data",
]


@dataclass(frozen=True)
class EventData(Model):
    """Base of every typed `data`; `EVENT_TYPE` is the event type it stands for."""

    EVENT_TYPE: ClassVar[str] = ""

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Self:
        return cls(raw=data)


@dataclass(frozen=True)
class UnknownEventData(EventData):
    """The `data` of an event type this version of the client does not know.

    Kept whole in `raw` (and `extra`): newer servers add event types (README:
    "Typed events"), and a receiver must accept them without failing.
    """

    event_type: str = ""


@dataclass(frozen=True)
class WebhookTest(EventData):
    """`webhook.test`: a test send; `data` holds only `endpointId`."""

    EVENT_TYPE: ClassVar[str] = "webhook.test"
    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"endpointId"})

    endpoint_id: str | None = None

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Self:
        return cls(raw=data, endpoint_id=text_of(data, "endpointId"))


_APPLICATION_FIELDS = frozenset({"clientId", "externalRef", "status", "previousStatus", "sequence"})


def _application_fields(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "raw": data,
        "client_id": text_of(data, "clientId") or "",
        "external_ref": text_of(data, "externalRef"),
        "status": status_of(data) or ApplicationStatus(""),
        "previous_status": status_of(data, "previousStatus"),
        "sequence": int_of(data, "sequence"),
    }


@dataclass(frozen=True)
class ApplicationEventData(EventData):
    """The fields every application event carries.

    `status` is the resulting status (approval only when exactly `active`);
    `previous_status` is None on `application.submitted` and equals `status`
    when the status did not change. `sequence` is allocation order per
    application, not status order: read the application for current state.
    """

    KNOWN_FIELDS: ClassVar[frozenset[str]] = _APPLICATION_FIELDS

    client_id: str = ""
    external_ref: str | None = None
    status: ApplicationStatus = field(default_factory=lambda: ApplicationStatus(""))
    previous_status: ApplicationStatus | None = None
    sequence: int | None = None

    @property
    def is_approved(self) -> bool:
        return self.status.is_approved

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Self:
        return cls(**_application_fields(data))


@dataclass(frozen=True)
class ApplicationSubmitted(ApplicationEventData):
    """`application.submitted`: the applicant submitted; common fields only."""

    EVENT_TYPE: ClassVar[str] = "application.submitted"


@dataclass(frozen=True)
class ApplicationStatusChanged(ApplicationEventData):
    """`application.status.changed`: `reason` is decision, info_request, pair_change or
    repair (kept as sent when unfamiliar)."""

    EVENT_TYPE: ClassVar[str] = "application.status.changed"
    KNOWN_FIELDS: ClassVar[frozenset[str]] = _APPLICATION_FIELDS | {"reason"}

    reason: str | None = None

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Self:
        return cls(**_application_fields(data), reason=text_of(data, "reason"))


@dataclass(frozen=True)
class DecisionEventData(ApplicationEventData):
    """A decision event: `action`, `actor_role` (analyst, mlro, admin, super_admin or
    customer; never a staff email) and the applicant-visible `comment`."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = _APPLICATION_FIELDS | {
        "action",
        "actorRole",
        "comment",
    }

    action: str | None = None
    actor_role: str | None = None
    comment: str | None = None

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Self:
        return cls(**_decision_fields(data))


def _decision_fields(data: dict[str, Any]) -> dict[str, Any]:
    return {
        **_application_fields(data),
        "action": text_of(data, "action"),
        "actor_role": text_of(data, "actorRole"),
        "comment": text_of(data, "comment"),
    }


@dataclass(frozen=True)
class DecisionProposed(DecisionEventData):
    """`application.decision.proposed`: approval proposed (action `approve`); status
    becomes pending_approval. Not approval yet."""

    EVENT_TYPE: ClassVar[str] = "application.decision.proposed"


@dataclass(frozen=True)
class DecisionApproved(DecisionEventData):
    """`application.decision.approved`: countersigned (action `approved`); status active."""

    EVENT_TYPE: ClassVar[str] = "application.decision.approved"


@dataclass(frozen=True)
class DecisionProposalRejected(DecisionEventData):
    """`application.decision.proposal_rejected`: a proposal was turned down; the status
    goes back to what it was before the proposal."""

    EVENT_TYPE: ClassVar[str] = "application.decision.proposal_rejected"


@dataclass(frozen=True)
class DecisionRejected(DecisionEventData):
    """`application.decision.rejected`: status rejected (action `reject`)."""

    EVENT_TYPE: ClassVar[str] = "application.decision.rejected"
    KNOWN_FIELDS: ClassVar[frozenset[str]] = DecisionEventData.KNOWN_FIELDS | {"rejectionReason"}

    rejection_reason: str | None = None

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Self:
        return cls(**_decision_fields(data), rejection_reason=text_of(data, "rejectionReason"))


@dataclass(frozen=True)
class DecisionHold(DecisionEventData):
    """`application.decision.hold`: status hold (action `hold`)."""

    EVENT_TYPE: ClassVar[str] = "application.decision.hold"


@dataclass(frozen=True)
class InfoRequestEventData(ApplicationEventData):
    """An information-request event: the request and its items (`item_id`, `type`,
    `prompt`, in the order staff listed them). `request_seq` is the request's
    sequence, distinct from the event `sequence`. No applicant answers or files."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = _APPLICATION_FIELDS | {
        "requestId",
        "requestSeq",
        "round",
        "openItems",
        "comment",
        "items",
    }

    request_id: str | None = None
    request_seq: int | None = None
    round: int | None = None
    open_items: int | None = None
    comment: str | None = None
    items: list[InfoRequestItem] = field(default_factory=list)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Self:
        return cls(
            **_application_fields(data),
            request_id=text_of(data, "requestId"),
            request_seq=int_of(data, "requestSeq"),
            round=int_of(data, "round"),
            open_items=int_of(data, "openItems"),
            comment=text_of(data, "comment"),
            items=models_of(InfoRequestItem, list_of_values(data, "items")),
        )


@dataclass(frozen=True)
class InfoRequestRaised(InfoRequestEventData):
    """`application.info_request.raised`: a request was raised; status needs_info."""

    EVENT_TYPE: ClassVar[str] = "application.info_request.raised"


@dataclass(frozen=True)
class InfoRequestResponded(InfoRequestEventData):
    """`application.info_request.responded`: the applicant answered every open item."""

    EVENT_TYPE: ClassVar[str] = "application.info_request.responded"


@dataclass(frozen=True)
class InfoRequestClosed(InfoRequestEventData):
    """`application.info_request.closed`: staff closed the request."""

    EVENT_TYPE: ClassVar[str] = "application.info_request.closed"


@dataclass(frozen=True)
class InfoRequestReminder(InfoRequestEventData):
    """`application.info_request.reminder`: the applicant was reminded of an open request.

    Carries the information-request fields; anything a server adds beyond
    them stays in `extra`.
    """

    EVENT_TYPE: ClassVar[str] = "application.info_request.reminder"


EVENT_DATA_TYPES: Mapping[str, type[EventData]] = MappingProxyType(
    {
        cls.EVENT_TYPE: cls
        for cls in (
            ApplicationSubmitted,
            ApplicationStatusChanged,
            DecisionProposed,
            DecisionApproved,
            DecisionProposalRejected,
            DecisionRejected,
            DecisionHold,
            InfoRequestRaised,
            InfoRequestResponded,
            InfoRequestClosed,
            InfoRequestReminder,
            WebhookTest,
        )
    }
)


def parse_event_data(event_type: str, data: dict[str, Any]) -> EventData:
    """The typed `data` of one event; `UnknownEventData` for a type not in the catalogue."""
    cls = EVENT_DATA_TYPES.get(event_type)
    if cls is None:
        return UnknownEventData(raw=data, event_type=event_type)
    return cls.from_data(data)
