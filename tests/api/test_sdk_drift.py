"""The client SDK's models (client/) against /openapi.json (docs/api-reference.md §3).

For each SDK model, every field it names (`KNOWN_FIELDS`) exists in the schema of the answer
or event it reads, and every field the schema requires is one the model names: a field added,
renamed or dropped on either side without the other fails here. The event payloads are
checked against the `webhooks` section, type by type.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from gatehouse_client import _console, _models, _webhook_models, events
from gatehouse_client._event_data import EVENT_DATA_TYPES

# SDK model -> the schema (component) of the answer it reads.
MODELS: dict[type[Any], str] = {
    _models.Member: "Member",
    _models.Decision: "Decision",
    _models.OpenInfoRequest: "OpenInfoRequest",
    _models.Application: "Application",
    _models.ApplicationPage: "ApplicationPage",
    _models.LoginSession: "LoginSession",
    _console.ConsoleSession: "ConsoleLinkView",
    _models.AccessState: "AccessState",
    _models.InfoRequestItem: "InfoRequestItem",
    _models.InfoRequest: "InfoRequest",
    _models.Intake: "IntakeLabel",
    _models.ChecklistItem: "ChecklistItem",
    _models.Document: "Document",
    _webhook_models.WebhookEndpoint: "CreatedWebhookEndpoint",
    _webhook_models.RotatedSecret: "RotatedSecret",
    _webhook_models.WebhookTestResult: "WebhookTestResult",
    _webhook_models.Delivery: "Delivery",
    _webhook_models.DeliveryPage: "DeliveryPage",
    events.Event: "EventEnvelope",
}


@pytest.fixture
async def document(client: httpx.AsyncClient) -> dict[str, Any]:
    body: dict[str, Any] = (await client.get("/openapi.json")).json()
    return body


def _drift(known: frozenset[str], schema: dict[str, Any]) -> list[str]:
    properties = set(schema.get("properties", {}))
    required = set(schema.get("required", []))
    problems = [
        f"the SDK reads {name!r}, the schema has no such field"
        for name in sorted(known - properties)
    ]
    problems += [
        f"the schema requires {name!r}, the SDK does not read it"
        for name in sorted(required - known)
    ]
    return problems


def _component(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema["$ref"]
    found: dict[str, Any] = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
    return found


async def test_models_match_the_answers(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    problems = []
    for model, name in MODELS.items():
        for problem in _drift(model.KNOWN_FIELDS, schemas[name]):
            problems.append(f"{model.__name__} / {name}: {problem}")
    assert not problems, "\n".join(problems)


async def test_event_payloads_match_the_webhooks_section(document: dict[str, Any]) -> None:
    problems = []
    for event_type, item in document["webhooks"].items():
        if event_type == "verification.callback":
            continue
        model = EVENT_DATA_TYPES.get(event_type)
        if model is None:
            problems.append(f"{event_type}: the SDK has no typed payload for it")
            continue
        schema = item["post"]["requestBody"]["content"]["application/json"]["schema"]
        data = _component(document, schema["allOf"][1]["properties"]["data"])
        for problem in _drift(model.KNOWN_FIELDS, data):
            problems.append(f"{event_type} / {model.__name__}: {problem}")
    assert not problems, "\n".join(problems)


def test_the_check_sees_a_drift() -> None:
    schema = {"properties": {"a": {}, "b": {}}, "required": ["a", "b"]}
    assert _drift(frozenset({"a", "b"}), schema) == []
    assert _drift(frozenset({"a", "b", "c"}), schema) == [
        "the SDK reads 'c', the schema has no such field"
    ]
    assert _drift(frozenset({"a"}), schema) == ["the schema requires 'b', the SDK does not read it"]
