"""Typed event payloads: one dataclass per catalogue type, unknown types and
fields kept, the envelope's `environment` (README: "Typed events")."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

import pytest
from gatehouse_client import (
    EVENT_DATA_TYPES,
    EVENT_TYPES,
    ApplicationEventData,
    ApplicationStatusChanged,
    ApplicationSubmitted,
    DecisionApproved,
    DecisionEventData,
    DecisionHold,
    DecisionProposalRejected,
    DecisionProposed,
    DecisionRejected,
    Event,
    EventData,
    InfoRequestClosed,
    InfoRequestEventData,
    InfoRequestItem,
    InfoRequestRaised,
    InfoRequestReminder,
    InfoRequestResponded,
    UnknownEventData,
    WebhookTest,
    parse_event_data,
    signature_header,
    verify,
)

COMMON = {"clientId": "app_1", "externalRef": "crm-1", "sequence": 7}
INFO_REQUEST = {
    **COMMON,
    "status": "needs_info",
    "previousStatus": "pending",
    "requestId": "ir_1",
    "requestSeq": 2,
    "round": 1,
    "openItems": 2,
    "comment": "Please send these",
    "items": [
        {"itemId": "itm_1", "type": "document", "prompt": "Passport"},
        {"itemId": "itm_2", "type": "text", "prompt": "Source of funds"},
    ],
}


def decision(action: str, status: str, previous: str, **more: Any) -> dict[str, Any]:
    return {
        **COMMON,
        "status": status,
        "previousStatus": previous,
        "action": action,
        "actorRole": "analyst",
        "comment": None,
        **more,
    }


# The `data` the server builds for each event type.
SAMPLES: dict[str, tuple[type[EventData], dict[str, Any]]] = {
    "application.submitted": (
        ApplicationSubmitted,
        {**COMMON, "status": "pending", "previousStatus": None},
    ),
    "application.status.changed": (
        ApplicationStatusChanged,
        {**COMMON, "status": "needs_info", "previousStatus": "pending", "reason": "info_request"},
    ),
    "application.decision.proposed": (
        DecisionProposed,
        decision("approve", "pending_approval", "pending"),
    ),
    "application.decision.approved": (
        DecisionApproved,
        decision("approved", "active", "pending_approval"),
    ),
    "application.decision.proposal_rejected": (
        DecisionProposalRejected,
        decision("proposal_rejected", "pending", "pending_approval"),
    ),
    "application.decision.rejected": (
        DecisionRejected,
        decision("reject", "rejected", "pending", rejectionReason="Sanctions match"),
    ),
    "application.decision.hold": (DecisionHold, decision("hold", "hold", "pending")),
    "application.info_request.raised": (InfoRequestRaised, INFO_REQUEST),
    "application.info_request.responded": (
        InfoRequestResponded,
        {**INFO_REQUEST, "status": "pending", "previousStatus": "needs_info", "openItems": 0},
    ),
    "application.info_request.closed": (
        InfoRequestClosed,
        {**INFO_REQUEST, "status": "pending", "previousStatus": "pending", "openItems": 0},
    ),
    "application.info_request.reminder": (
        InfoRequestReminder,
        {**INFO_REQUEST, "previousStatus": "needs_info"},
    ),
    "webhook.test": (WebhookTest, {"endpointId": "we_1"}),
}


def envelope(event_type: str, data: Any, **more: Any) -> dict[str, Any]:
    return {
        "id": "evt_1",
        "type": event_type,
        "apiVersion": "v1",
        "occurredAt": "2026-11-22T10:00:00.000Z",
        "tenantId": "ten_1",
        "idempotencyKey": "evt_1",
        "data": data,
        **more,
    }


def test_every_catalogue_type_has_a_payload_class() -> None:
    assert set(EVENT_DATA_TYPES) == set(EVENT_TYPES) == set(SAMPLES)
    for event_type, cls in EVENT_DATA_TYPES.items():
        assert event_type == cls.EVENT_TYPE
        assert dataclasses.is_dataclass(cls)
        assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


@pytest.mark.parametrize("event_type", sorted(SAMPLES))
def test_each_type_parses_to_its_class_and_keeps_new_fields(event_type: str) -> None:
    cls, data = SAMPLES[event_type]
    event = Event.from_json(envelope(event_type, {**data, "addedLater": {"x": 1}}))
    payload = event.payload
    assert type(payload) is cls
    assert payload.raw["addedLater"] == {"x": 1}
    assert payload.extra == {"addedLater": {"x": 1}}
    with pytest.raises(dataclasses.FrozenInstanceError):
        payload.raw = {}  # type: ignore[misc]
    if isinstance(payload, ApplicationEventData):
        assert payload.client_id == "app_1"
        assert payload.external_ref == "crm-1"
        assert payload.sequence == 7
        assert payload.status == data["status"]
    assert event.payload is payload  # parsed once


def test_application_fields() -> None:
    submitted = parse_event_data("application.submitted", SAMPLES["application.submitted"][1])
    assert isinstance(submitted, ApplicationSubmitted)
    assert submitted.previous_status is None
    assert submitted.status.is_known
    changed = parse_event_data(
        "application.status.changed", SAMPLES["application.status.changed"][1]
    )
    assert isinstance(changed, ApplicationStatusChanged)
    assert (changed.status, changed.previous_status, changed.reason) == (
        "needs_info",
        "pending",
        "info_request",
    )
    assert not changed.is_approved


def test_decision_fields() -> None:
    approved = parse_event_data(
        "application.decision.approved", SAMPLES["application.decision.approved"][1]
    )
    assert isinstance(approved, DecisionApproved)
    assert isinstance(approved, DecisionEventData)
    assert (approved.action, approved.actor_role, approved.comment) == ("approved", "analyst", None)
    assert approved.is_approved
    assert approved.status.is_approved
    proposed = parse_event_data(
        "application.decision.proposed", SAMPLES["application.decision.proposed"][1]
    )
    assert isinstance(proposed, DecisionProposed)
    assert not proposed.is_approved
    rejected = parse_event_data(
        "application.decision.rejected", SAMPLES["application.decision.rejected"][1]
    )
    assert isinstance(rejected, DecisionRejected)
    assert rejected.rejection_reason == "Sanctions match"
    assert rejected.extra == {}


def test_info_request_fields_and_items_in_order() -> None:
    for event_type in (
        "application.info_request.raised",
        "application.info_request.responded",
        "application.info_request.closed",
        "application.info_request.reminder",
    ):
        payload = parse_event_data(event_type, SAMPLES[event_type][1])
        assert isinstance(payload, InfoRequestEventData)
        assert (payload.request_id, payload.request_seq, payload.round) == ("ir_1", 2, 1)
        assert payload.comment == "Please send these"
        assert payload.sequence == 7
        assert [(i.item_id, i.type, i.prompt) for i in payload.items] == [
            ("itm_1", "document", "Passport"),
            ("itm_2", "text", "Source of funds"),
        ]
        assert all(isinstance(i, InfoRequestItem) for i in payload.items)
    raised = parse_event_data("application.info_request.raised", INFO_REQUEST)
    assert isinstance(raised, InfoRequestRaised)
    assert raised.open_items == 2


def test_unknown_event_types_are_kept_raw_never_an_error() -> None:
    data = {"clientId": "app_1", "somethingNew": [1, 2]}
    event = Event.from_json(envelope("application.future.thing", data))
    assert not event.is_known_type
    payload = event.payload
    assert isinstance(payload, UnknownEventData)
    assert payload.event_type == "application.future.thing"
    assert payload.raw == data
    assert payload.extra == data


def test_malformed_data_does_not_raise() -> None:
    odd = {
        "clientId": 5,
        "status": ["x"],
        "sequence": "7",
        "items": [1, "x", {"itemId": "itm_1", "extraKey": True}],
        "round": True,
    }
    payload = parse_event_data("application.info_request.raised", odd)
    assert isinstance(payload, InfoRequestRaised)
    assert payload.client_id == ""
    assert payload.status == ""
    assert not payload.is_approved
    assert payload.sequence is None
    assert payload.round is None
    assert [i.item_id for i in payload.items] == ["itm_1"]
    assert payload.items[0].extra == {"extraKey": True}
    # `data` that is not an object becomes {}.
    assert Event.from_json(envelope("application.submitted", [1])).payload.raw == {}


def test_unknown_status_in_a_payload_is_never_approval() -> None:
    data = decision("approved", "approved", "pending_approval")
    payload = parse_event_data("application.decision.approved", data)
    assert isinstance(payload, DecisionApproved)
    assert payload.status == "approved"
    assert not payload.status.is_known
    assert not payload.is_approved


def test_environment_on_the_envelope() -> None:
    live = Event.from_json(envelope("webhook.test", {"endpointId": "we_1"}, environment="live"))
    sandbox = Event.from_json(
        envelope("webhook.test", {"endpointId": "we_1"}, environment="sandbox")
    )
    older = Event.from_json(envelope("webhook.test", {"endpointId": "we_1"}))
    assert (live.environment, live.is_sandbox) == ("live", False)
    assert (sandbox.environment, sandbox.is_sandbox) == ("sandbox", True)
    assert (older.environment, older.is_sandbox) == (None, False)
    assert sandbox.extra == {}  # environment is a known field
    future = Event.from_json(envelope("webhook.test", {}, environment="staging", region="eu"))
    assert future.environment == "staging"
    assert not future.is_sandbox
    assert future.extra == {"region": "eu"}


def test_payload_from_a_verified_delivery_and_pattern_matching() -> None:
    secret = "whsec_" + "k" * 40
    now = int(time.time())
    _, data = SAMPLES["application.decision.rejected"]
    body = json.dumps(envelope("application.decision.rejected", data, environment="sandbox"))
    raw = body.encode()
    headers = {
        "Gatehouse-Event-Id": "evt_1",
        "Gatehouse-Event-Type": "application.decision.rejected",
        "Gatehouse-Timestamp": str(now),
        "Gatehouse-Signature": signature_header([secret], now, raw),
    }
    event = verify(raw, headers, secret)
    assert event.is_sandbox

    outcome: tuple[str, str | None] | None
    match event.payload:
        case DecisionRejected(client_id=client_id, rejection_reason=reason):
            outcome = (client_id, reason)
        case _:
            outcome = None
    assert outcome == ("app_1", "Sanctions match")
