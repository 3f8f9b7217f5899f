"""client.sandbox.simulate (README: "Sandbox"): the call description, its retry
safety and the typed answer. httpx.MockTransport stands in for the network
only to check the request shape the sync and async clients send; the route
against a real server is tested in test_client_sandbox_live.py."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from gatehouse_client import SANDBOX_ACTIONS, Application, AsyncClient, Client
from gatehouse_client._retry import Action, Backoff, Safety, decide
from gatehouse_client._sandbox_calls import simulate

API_KEY = "service_abcdefabcdef_" + "S" * 32
APP = {
    "clientId": "app_1",
    "status": "rejected",
    "externalRef": "crm-1",
    "rejectionReason": "Sanctions match",
    "members": [{"uid": "mem_1", "email": "ada@example.test", "role": "owner"}],
    "sandboxOnlyField": True,
}


def test_the_call_description() -> None:
    call = simulate("app_1", "reject", comment="No", rejection_reason="Sanctions match")
    assert (call.method, call.path) == ("POST", "/v1/sandbox/applications/app_1/simulate")
    assert call.body == {"action": "reject", "comment": "No", "rejectionReason": "Sanctions match"}
    assert call.params is None
    assert call.reconcile is None
    assert call.safety is Safety.KEYED
    assert call.idempotency_key is not None
    assert call.idempotency_key.startswith("gh-")


def test_optional_fields_are_left_out_and_ids_are_path_segments() -> None:
    call = simulate("app/../x y", "submit")
    assert call.body == {"action": "submit"}
    assert call.path == "/v1/sandbox/applications/app%2F..%2Fx%20y/simulate"


def test_request_info_items_are_sent_as_the_staff_api_takes_them() -> None:
    items = ({"type": "document", "prompt": "A utility bill"}, {"type": "question", "prompt": "?"})
    call = simulate("app_1", "request_info", comment="Two things", items=items)
    assert call.body == {
        "action": "request_info",
        "comment": "Two things",
        "items": [
            {"type": "document", "prompt": "A utility bill"},
            {"type": "question", "prompt": "?"},
        ],
    }
    assert "items" not in simulate("app_1", "request_info").body


def test_one_key_per_logical_call_a_caller_key_or_none() -> None:
    first, second = simulate("app_1", "approve"), simulate("app_1", "approve")
    assert first.idempotency_key != second.idempotency_key
    assert simulate("app_1", "hold", idempotency_key="mine-1").idempotency_key == "mine-1"
    assert simulate("app_1", "hold", idempotent=False).idempotency_key is None
    with pytest.raises(ValueError, match="idempotency_key given with idempotent=False"):
        simulate("app_1", "hold", idempotency_key="x", idempotent=False)


@pytest.mark.parametrize("action", ["", None, 3])
def test_an_action_is_required(action: Any) -> None:
    with pytest.raises(ValueError, match="action is one of"):
        simulate("app_1", action)
    with pytest.raises(ValueError, match="identifiers must be nonempty strings"):
        simulate("", "submit")


def test_actions_are_sent_as_given() -> None:
    assert SANDBOX_ACTIONS == (
        "submit",
        "request_info",
        "respond",
        "approve",
        "reject",
        "hold",
        "release",
    )
    # A server that learns a new action needs no new client.
    assert simulate("app_1", "expire").body == {"action": "expire"}


def test_retried_like_other_writes() -> None:
    keyed, unkeyed = simulate("app_1", "approve"), simulate("app_1", "approve", idempotent=False)

    def after(call: Any, **failure: Any) -> Action:
        return decide(
            safety=call.safety,
            has_key=call.idempotency_key is not None,
            can_reconcile=call.reconcile is not None,
            retries_done=0,
            max_retries=3,
            backoff=Backoff(),
            **failure,
        ).action

    # Ambiguous (5xx, timeout after sending): repeated only with its key.
    assert after(keyed, status=503) is Action.RETRY
    assert after(keyed, status=None, sent=True) is Action.RETRY
    assert after(unkeyed, status=503) is Action.AMBIGUOUS
    # Nothing ran: every call repeats. A refusal is raised.
    assert after(unkeyed, status=429) is Action.RETRY
    assert after(unkeyed, status=None, sent=False) is Action.RETRY
    assert after(keyed, status=400, code="failed-precondition") is Action.RAISE
    assert after(keyed, status=404, code="not-found") is Action.RAISE


def test_the_answer_is_the_typed_application() -> None:
    call = simulate("app_1", "reject", rejection_reason="Sanctions match")
    application = call.parse(200, APP)
    assert isinstance(application, Application)
    assert application.client_id == "app_1"
    assert application.status == "rejected"
    assert application.rejection_reason == "Sanctions match"
    assert not application.is_approved
    assert application.members_included
    assert application.members[0].role == "owner"
    assert application.extra == {"sandboxOnlyField": True}
    assert call.parse(200, None).client_id == ""  # an empty answer does not raise


class Recorder:
    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(200, json=APP)


def assert_shape(request: httpx.Request, key: str) -> None:
    assert request.method == "POST"
    assert request.url.path == "/v1/sandbox/applications/app_1/simulate"
    assert request.headers["Authorization"] == f"Bearer {API_KEY}"
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["Idempotency-Key"] == key
    assert json.loads(request.content) == {
        "action": "reject",
        "comment": "Not this time",
        "rejectionReason": "Sanctions match",
    }


def test_the_sync_client_sends_that_call() -> None:
    recorder = Recorder()
    with Client("http://gatehouse.test", API_KEY, transport=httpx.MockTransport(recorder)) as gh:
        application = gh.sandbox.simulate(
            "app_1",
            "reject",
            comment="Not this time",
            rejection_reason="Sanctions match",
            idempotency_key="key-1",
        )
    assert isinstance(application, Application)
    assert application.status == "rejected"
    (request,) = recorder.requests
    assert_shape(request, "key-1")


async def test_the_async_client_sends_that_call() -> None:
    recorder = Recorder()
    async with AsyncClient(
        "http://gatehouse.test", API_KEY, transport=httpx.MockTransport(recorder)
    ) as gh:
        application = await gh.sandbox.simulate(
            "app_1",
            "reject",
            comment="Not this time",
            rejection_reason="Sanctions match",
            idempotency_key="key-2",
        )
    assert isinstance(application, Application)
    assert application.client_id == "app_1"
    (request,) = recorder.requests
    assert_shape(request, "key-2")
