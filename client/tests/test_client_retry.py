"""Retry decisions of docs/reference/tenant-api.md §5.15, §4.4 (docs/reference/tenant-api.md §4.6).

httpx.MockTransport stands in for the network here only, to script 429s,
5xx and dropped connections; the client's behaviour against a real server
is tested in test_client_live.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from gatehouse_client import (
    AlreadyExists,
    AmbiguousResult,
    AsyncClient,
    Client,
    FailedPrecondition,
    GatehouseError,
    Gone,
    InvalidArgument,
    NetworkError,
    NotFound,
    PermissionDenied,
    RateLimited,
    ServerError,
    Unauthorized,
)

API_KEY = "service_abcdefabcdef_" + "S" * 32
APP = {"clientId": "app_1", "status": "pending", "externalRef": "crm-1", "members": []}


def error_body(code: str, status: int, request_id: str = "req_1") -> dict[str, Any]:
    return {"error": {"code": code, "message": f"{code} happened", "requestId": request_id}}


class Script:
    """Answers requests in order; records every request (method, path, headers, body)."""

    def __init__(self, *answers: httpx.Response | Exception | Callable[[httpx.Request], Any]):
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if not self.answers:
            raise AssertionError(f"unexpected request {request.method} {request.url}")
        answer = self.answers.pop(0)
        if callable(answer) and not isinstance(answer, httpx.Response):
            answer = answer(request)
        if isinstance(answer, Exception):
            raise answer
        assert isinstance(answer, httpx.Response)
        return answer

    @property
    def keys(self) -> list[str | None]:
        return [r.headers.get("Idempotency-Key") for r in self.requests]

    @property
    def paths(self) -> list[str]:
        return [f"{r.method} {r.url.path}" for r in self.requests]


def make_client(script: Script, **kwargs: Any) -> tuple[Client, list[float]]:
    sleeps: list[float] = []
    client = Client(
        "http://gatehouse.test",
        API_KEY,
        transport=httpx.MockTransport(script),
        sleep=sleeps.append,
        backoff_base=0.5,
        **kwargs,
    )
    return client, sleeps


def ok(body: Any, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body)


def err(status: int, code: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, json=error_body(code, status), headers=headers)


def test_429_honours_retry_after() -> None:
    script = Script(err(429, "resource-exhausted", {"Retry-After": "7"}), ok(APP))
    client, sleeps = make_client(script)
    assert client.get_application("app_1").client_id == "app_1"
    assert sleeps == [7.0]


def test_429_without_retry_after_backs_off_with_jitter() -> None:
    script = Script(*(err(429, "resource-exhausted") for _ in range(3)), ok(APP))
    client, sleeps = make_client(script, max_retries=3)
    client.get_application("app_1")
    # Attempt n waits uniform in [d/2, d], d = 0.5 * 2**n.
    assert len(sleeps) == 3
    for n, slept in enumerate(sleeps):
        nominal = 0.5 * 2**n
        assert nominal / 2 <= slept <= nominal


def test_429_also_retries_writes_that_must_not_be_repeated() -> None:
    # A 429 means nothing ran, so even a login session may be sent again, same key.
    session = {"loginUrl": "http://x/portal/login/t", "clientId": "app_1", "expiresAt": None}
    script = Script(err(429, "resource-exhausted", {"Retry-After": "1"}), ok(session, 201))
    client, _ = make_client(script)
    assert client.create_login_session("a@example.test").client_id == "app_1"
    assert script.keys[0] is not None
    assert script.keys[0] == script.keys[1]


def test_429_exhausted_raises_rate_limited_with_retry_after() -> None:
    script = Script(*(err(429, "resource-exhausted", {"Retry-After": "2"}) for _ in range(3)))
    client, sleeps = make_client(script, max_retries=2)
    with pytest.raises(RateLimited) as caught:
        client.list_intakes()
    assert caught.value.retry_after == 2.0
    assert caught.value.status == 429
    assert sleeps == [2.0, 2.0]


def test_a_retry_after_beyond_the_cap_is_not_waited_for() -> None:
    script = Script(err(429, "resource-exhausted", {"Retry-After": "3600"}))
    client, sleeps = make_client(script, max_retry_after=60)
    with pytest.raises(RateLimited) as caught:
        client.list_intakes()
    assert caught.value.retry_after == 3600
    assert sleeps == []


def test_409_aborted_in_flight_waits_and_repeats_with_the_same_key() -> None:
    script = Script(err(409, "aborted", {"Retry-After": "1"}), ok(APP, 201))
    client, sleeps = make_client(script)
    assert client.create_application("a@example.test", external_ref="crm-1").created is True
    assert sleeps == [1.0]
    assert script.keys[0] == script.keys[1]


@pytest.mark.parametrize(
    "failure", [err(500, "internal"), err(503, "unavailable"), httpx.ReadTimeout("slow")]
)
def test_reads_are_retried_after_5xx_and_timeouts(failure: Any) -> None:
    script = Script(failure, ok({"data": [{"labelId": "lbl_1", "name": "x", "order": 1}]}))
    client, sleeps = make_client(script)
    assert [i.label_id for i in client.list_intakes()] == ["lbl_1"]
    assert len(sleeps) == 1


def test_reads_raise_the_error_once_retries_are_exhausted() -> None:
    script = Script(err(502, "internal"), err(502, "internal"))
    client, _ = make_client(script, max_retries=1)
    with pytest.raises(ServerError) as caught:
        client.get_application("app_1")
    assert caught.value.status == 502
    script = Script(httpx.ReadTimeout("slow"), httpx.ReadTimeout("slow"))
    client, _ = make_client(script, max_retries=1)
    with pytest.raises(NetworkError):
        client.get_application("app_1")


def test_a_keyed_write_is_repeated_with_the_key_generated_once() -> None:
    script = Script(err(500, "internal"), httpx.ReadTimeout("lost"), ok(APP, 200))
    client, _ = make_client(script)
    app = client.create_application("a@example.test", external_ref="crm-1")
    assert app.client_id == "app_1"
    assert app.created is False
    assert len(set(script.keys)) == 1
    assert script.keys[0] is not None
    bodies = [json.loads(r.content) for r in script.requests]
    assert all(b == {"email": "a@example.test", "externalRef": "crm-1"} for b in bodies)


def test_each_logical_call_gets_its_own_key_and_a_caller_key_is_used_as_is() -> None:
    script = Script(ok(APP, 201), ok(APP, 200), ok(APP, 200))
    client, _ = make_client(script)
    client.create_application("a@example.test")
    client.create_application("a@example.test")
    client.create_application("a@example.test", idempotency_key="order-77")
    assert script.keys[0] != script.keys[1]
    assert script.keys[2] == "order-77"
    with pytest.raises(ValueError, match="Idempotency-Key is 1 to 255 printable ASCII"):
        client.create_application("a@example.test", idempotency_key="x" * 256)
    with pytest.raises(ValueError, match="Idempotency-Key is 1 to 255 printable ASCII"):
        client.create_application("a@example.test", idempotency_key="caf\u00e9")


def test_reads_send_no_idempotency_key() -> None:
    script = Script(ok(APP))
    client, _ = make_client(script)
    client.get_application("app_1")
    assert script.keys == [None]
    assert script.requests[0].headers["Authorization"] == f"Bearer {API_KEY}"


def test_exhausted_keyed_write_raises_ambiguous_result_carrying_the_key() -> None:
    script = Script(err(500, "internal"), err(500, "internal"))
    client, _ = make_client(script, max_retries=1)
    with pytest.raises(AmbiguousResult) as caught:
        client.create_application("a@example.test")
    assert caught.value.idempotency_key == script.keys[0]
    assert isinstance(caught.value.cause, ServerError)


@pytest.mark.parametrize("failure", [err(500, "internal"), httpx.ReadTimeout("lost")])
def test_login_sessions_are_never_repeated_blindly(failure: Any) -> None:
    script = Script(failure)
    client, sleeps = make_client(script)
    with pytest.raises(AmbiguousResult) as caught:
        client.create_login_session("a@example.test", external_ref="crm-1")
    assert len(script.requests) == 1
    assert sleeps == []
    assert caught.value.idempotency_key == script.keys[0]
    # Repeating deliberately with the same key is how to get the first link back.
    session = {"loginUrl": "http://x/portal/login/t", "clientId": "app_1", "expiresAt": None}
    script.answers.append(ok(session, 201))
    client.create_login_session(
        "a@example.test", external_ref="crm-1", idempotency_key=caught.value.idempotency_key
    )
    assert script.keys[1] == script.keys[0]


def test_application_login_sessions_and_secret_rotation_are_never_repeated_blindly() -> None:
    script = Script(err(503, "unavailable"), httpx.RemoteProtocolError("reset"))
    client, _ = make_client(script)
    with pytest.raises(AmbiguousResult):
        client.create_application_login_session("app_1")
    with pytest.raises(AmbiguousResult):
        client.webhooks.rotate_secret("we_1")
    assert script.paths == [
        "POST /v1/applications/app_1/login-sessions",
        "POST /v1/webhooks/we_1/rotate-secret",
    ]


def test_connection_never_opened_is_retried_even_for_login_sessions() -> None:
    session = {"loginUrl": "http://x/portal/login/t", "clientId": "app_1", "expiresAt": None}
    script = Script(httpx.ConnectError("refused"), ok(session, 201))
    client, _ = make_client(script)
    assert client.create_login_session("a@example.test").client_id == "app_1"
    assert script.keys[0] == script.keys[1]


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (
            lambda c: c.add_member("app_1", "b@example.test", idempotent=False),
            "POST /v1/applications/app_1/members",
        ),
        (lambda c: c.lock("app_1", idempotent=False), "POST /v1/applications/app_1/lock"),
        (lambda c: c.unlock("app_1", idempotent=False), "POST /v1/applications/app_1/unlock"),
    ],
)
def test_member_add_lock_and_unlock_repeat_even_without_a_key(call: Any, path: str) -> None:
    answer = {"uid": "mem_1", "email": "b@example.test", "clientId": "app_1", "access": "locked"}
    script = Script(err(500, "internal"), httpx.ReadTimeout("lost"), ok(answer))
    client, _ = make_client(script)
    call(client)
    assert script.paths == [path, path, path]
    assert script.keys == [None, None, None]


def test_provisioning_without_a_key_reconciles_by_external_ref_before_repeating() -> None:
    listed = {"data": [APP], "nextCursor": None, "hasMore": False}
    script = Script(httpx.ReadTimeout("lost"), ok(listed))
    client, _ = make_client(script)
    app = client.create_application("a@example.test", external_ref="  crm-1 ", idempotent=False)
    assert app.client_id == "app_1"
    assert app.created is None
    assert script.paths == ["POST /v1/applications", "GET /v1/applications"]
    assert script.requests[1].url.params["externalRef"] == "crm-1"  # trimmed like the server
    assert script.keys == [None, None]


def test_provisioning_without_a_key_repeats_when_the_read_finds_nothing() -> None:
    empty = {"data": [], "nextCursor": None, "hasMore": False}
    script = Script(err(500, "internal"), ok(empty), ok(APP, 201))
    client, _ = make_client(script)
    app = client.create_application("a@example.test", external_ref="crm-1", idempotent=False)
    assert app.created is True
    assert script.paths == [
        "POST /v1/applications",
        "GET /v1/applications",
        "POST /v1/applications",
    ]


def test_member_removal_without_a_key_reads_the_roster_before_repeating() -> None:
    gone = {**APP, "members": [{"uid": "mem_2", "email": "c@example.test"}]}
    script = Script(httpx.ReadTimeout("lost"), ok(gone))
    client, _ = make_client(script)
    client.remove_member("app_1", "mem_1", idempotent=False)
    assert script.paths == [
        "DELETE /v1/applications/app_1/members/mem_1",
        "GET /v1/applications/app_1",
    ]
    still = {**APP, "members": [{"uid": "mem_1", "email": "b@example.test"}]}
    script = Script(httpx.ReadTimeout("lost"), ok(still), httpx.Response(204))
    client, _ = make_client(script)
    client.remove_member("app_1", "mem_1", new_owner_uid="mem_2", idempotent=False)
    assert len(script.requests) == 3
    assert script.requests[2].url.params["newOwnerUid"] == "mem_2"


def test_webhook_create_without_a_key_is_ambiguous_not_repeated() -> None:
    script = Script(err(500, "internal"))
    client, _ = make_client(script)
    with pytest.raises(AmbiguousResult) as caught:
        client.webhooks.create("https://hooks.example.com/x", ["*"], idempotent=False)
    assert caught.value.idempotency_key is None
    assert len(script.requests) == 1


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (400, "invalid-argument", InvalidArgument),
        (400, "failed-precondition", FailedPrecondition),
        (401, "unauthorized", Unauthorized),
        (403, "permission-denied", PermissionDenied),
        (404, "not-found", NotFound),
        (409, "already-exists", AlreadyExists),
        (410, "failed-precondition", Gone),
        (418, "teapot", GatehouseError),
    ],
)
def test_4xx_are_typed_and_never_retried(status: int, code: str, cls: type[Exception]) -> None:
    body = {
        "error": {
            "code": code,
            "message": "m",
            "requestId": "req_9",
            "details": [{"field": "email", "issue": "invalid"}],
        }
    }
    script = Script(httpx.Response(status, json=body, headers={"Service-Request-Id": "req_9"}))
    client, sleeps = make_client(script)
    with pytest.raises(cls) as caught:
        client.create_application("a@example.test")
    error = caught.value
    assert isinstance(error, GatehouseError)
    assert (error.status, error.code, error.request_id) == (status, code, "req_9")
    assert error.details == [{"field": "email", "issue": "invalid"}]
    assert len(script.requests) == 1
    assert sleeps == []


def test_a_non_json_error_body_still_raises_a_typed_error() -> None:
    script = Script(httpx.Response(404, text="nope", headers={"Service-Request-Id": "req_x"}))
    client, _ = make_client(script)
    with pytest.raises(NotFound) as caught:
        client.get_application("app_1")
    assert caught.value.request_id == "req_x"
    assert caught.value.code is None


def test_list_filters_and_cursor_are_sent_and_iteration_keeps_them_fixed() -> None:
    pages = [
        ok({"data": [APP, {**APP, "clientId": "app_2"}], "nextCursor": "c1", "hasMore": True}),
        # app_2 again (records can repeat across pages): yielded once.
        ok(
            {
                "data": [{**APP, "clientId": "app_2"}, {**APP, "clientId": "app_3"}],
                "nextCursor": None,
                "hasMore": False,
            }
        ),
    ]
    script = Script(*pages)
    client, _ = make_client(script)
    seen = [
        a.client_id
        for a in client.iter_applications(
            status="pending", updated_since="2026-11-22T10:00:00.000Z", page_size=2
        )
    ]
    assert seen == ["app_1", "app_2", "app_3"]
    first, second = (dict(r.url.params) for r in script.requests)
    assert first == {"limit": "2", "status": "pending", "updatedSince": "2026-11-22T10:00:00.000Z"}
    assert second == {**first, "cursor": "c1"}


async def test_async_client_follows_the_same_rules() -> None:
    script = Script(
        err(429, "resource-exhausted", {"Retry-After": "3"}),
        err(500, "internal"),
        ok(APP, 201),
        err(500, "internal"),
    )
    sleeps: list[float] = []

    async def record(delay: float) -> None:
        sleeps.append(delay)

    async with AsyncClient(
        "http://gatehouse.test", API_KEY, transport=httpx.MockTransport(script), sleep=record
    ) as client:
        app = await client.create_application("a@example.test", external_ref="crm-1")
        assert app.created is True
        assert sleeps[0] == 3.0
        assert len(sleeps) == 2
        assert len(set(script.keys)) == 1
        with pytest.raises(AmbiguousResult):
            await client.create_application_login_session("app_1")


def test_repr_never_shows_the_api_key() -> None:
    client, _ = make_client(Script())
    assert API_KEY not in repr(client)
    assert "S" * 32 not in repr(client)
