"""Structured JSON logs with a request id, and the redaction filter."""

from __future__ import annotations

import io
import json
import logging
import re
import time
from datetime import datetime

import httpx
import pytest

from gatehouse.logs import _PATTERNS, REDACTED, REQUEST_ID, json_handler, redact, timestamp
from tests.support.factories import TenantFixture

API_KEY = "service_abcdefghijkl0123_" + "Zx9" * 12
STAFF_TOKEN = "staff_abcdefghijkl0123_" + "Qw8" * 12
WEBHOOK_SECRET = "whsec_" + "aB3-_" * 8
LOGIN_URL = "https://gatehouse.test/portal/login/tok" + "N4m" * 10


def emit(*args: object, **extra: object) -> dict[str, object]:
    stream = io.StringIO()
    logger = logging.getLogger("gatehouse.test.logs")
    handler = json_handler(stream)
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning(*args, extra=extra)  # type: ignore[arg-type]
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    line = stream.getvalue().strip()
    assert "\n" not in line
    return dict(json.loads(line))


def test_lines_are_json_with_level_logger_and_extra_fields() -> None:
    entry = emit("delivered %s", "evt_1", endpoint="we_1", attempt=2)
    assert entry["message"] == "delivered evt_1"
    assert entry["level"] == "warning"
    assert entry["logger"] == "gatehouse.test.logs"
    assert entry["endpoint"] == "we_1"
    assert entry["attempt"] == 2
    assert "request_id" not in entry


def test_request_id_is_added_inside_a_request() -> None:
    token = REQUEST_ID.set("req_test123")
    try:
        entry = emit("inside")
    finally:
        REQUEST_ID.reset(token)
    assert entry["request_id"] == "req_test123"


def test_secrets_are_redacted_wherever_they_appear() -> None:
    secrets = [API_KEY, STAFF_TOKEN, WEBHOOK_SECRET, LOGIN_URL.rsplit("/", 1)[1]]
    entries = [
        emit(f"message {API_KEY} {STAFF_TOKEN} {WEBHOOK_SECRET} {LOGIN_URL}"),
        emit("args %s %s %s %s", API_KEY, STAFF_TOKEN, WEBHOOK_SECRET, LOGIN_URL),
        emit("extra", key=API_KEY, url=LOGIN_URL, nested={"secret": WEBHOOK_SECRET}),
        emit("header Authorization: Bearer some.opaque-token value"),
    ]
    text = json.dumps(entries)
    for secret in [*secrets, "some.opaque-token"]:
        assert secret not in text
    assert "/portal/login/[redacted]" in text


def test_exception_text_is_redacted() -> None:
    stream = io.StringIO()
    logger = logging.getLogger("gatehouse.test.exc")
    handler = json_handler(stream)
    logger.addHandler(handler)
    logger.propagate = False
    try:
        try:
            raise ValueError(f"bad key {API_KEY}")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    entry = json.loads(stream.getvalue())
    assert "ValueError" in entry["exception"]
    assert API_KEY not in stream.getvalue()


def test_key_value_secrets_are_redacted() -> None:
    text = redact('{"clientSecret": "s3cr3tvalue", "passphrase": "hunter22", "name": "x"}')
    assert "s3cr3tvalue" not in text
    assert "hunter22" not in text
    assert '"name": "x"' in text


async def test_request_urls_with_login_tokens_are_redacted_in_captured_logs(
    client: httpx.AsyncClient, tenant: TenantFixture, captured_logs: list[str]
) -> None:
    before = len(captured_logs)
    path = "/portal/login/" + "T0k3n" * 8
    await client.get(path)
    logging.getLogger("gatehouse.test").info("tenant key %s", tenant.api_key)
    new = "\n".join(captured_logs[before:])
    assert "T0k3n" * 8 not in new
    assert tenant.api_key not in new
    assert "[redacted]" in new


def test_timestamps_are_rfc3339_utc_with_milliseconds() -> None:
    before = time.time()
    entry = emit("stamped")
    after = time.time()
    at = str(entry["at"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", at), at
    stamp = datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()
    assert before - 0.001 <= stamp <= after
    # Rounded as datetime rounds: 1.123 is 1.12299999... as a float.
    assert timestamp(1764000000.123) == "2025-11-24T16:00:00.123Z"
    assert timestamp(0.9999996) == "1970-01-01T00:00:01.000Z"


@pytest.mark.parametrize(
    "text",
    [
        "plain text with nothing to hide",
        "Authorization: BEARER abc.def",
        '{"ApiKey": "k3y", "CLIENTSECRET": "x"}',
        "TOKEN=abc",
        f"key {API_KEY.upper()} and {API_KEY}",
        "\u017fecret: hidden",  # the long s matches "s" under IGNORECASE
        "caf\u00e9 passphrase=hunter22",
    ],
)
def test_redaction_without_hints_changes_nothing_the_patterns_would(text: str) -> None:
    expected = text
    for pattern in _PATTERNS:
        if pattern.groups:
            expected = pattern.sub(lambda m: m.group(1) + REDACTED, expected)
        else:
            expected = pattern.sub(REDACTED, expected)
    assert redact(text) == expected


def access_lines(lines: list[str], request_id: str) -> list[dict[str, object]]:
    entries = [json.loads(line) for line in lines if request_id in line]
    return [e for e in entries if e["logger"] == "gatehouse.access"]


async def test_one_access_line_per_request(
    client: httpx.AsyncClient, tenant: TenantFixture, captured_logs: list[str]
) -> None:
    before = len(captured_logs)
    read = await client.get("/v1/applications/app_none", headers=tenant.headers)
    missing = await client.get("/v1/nothing/here?x=1")
    options = await client.options("/v1/applications")
    new = captured_logs[before:]
    (line,) = access_lines(new, read.headers["service-request-id"])
    assert line["request_id"] == read.headers["service-request-id"]
    assert line["method"] == "GET"
    assert line["route"] == "/v1/applications/{client_id}"
    assert line["status"] == 404
    assert isinstance(line["ms"], float)
    assert line["ms"] >= 0
    assert line["message"] == "GET /v1/applications/{client_id} 404"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", str(line["at"]))
    # No route: the path stands in for the template.
    (line,) = access_lines(new, missing.headers["service-request-id"])
    assert line["path"] == "/v1/nothing/here"
    assert "route" not in line
    assert line["status"] == 404
    (line,) = access_lines(new, options.headers["service-request-id"])
    assert line["status"] == 405
    # Every line of these requests is the access line: nothing else logged them.
    ids = {r.headers["service-request-id"] for r in (read, missing, options)}
    mentioning = [text for text in new if any(i in text for i in ids)]
    assert len(mentioning) == 3


async def test_paths_in_access_lines_are_redacted(
    client: httpx.AsyncClient, tenant: TenantFixture, captured_logs: list[str]
) -> None:
    before = len(captured_logs)
    response = await client.get(f"/v1/no-route/{tenant.api_key}")
    invite = await client.get("/dashboard/invite/" + "Inv1te" * 8 + "/extra")
    new = captured_logs[before:]
    (line,) = access_lines(new, response.headers["service-request-id"])
    assert line["path"] == "/v1/no-route/[redacted]"
    (line,) = access_lines(new, invite.headers["service-request-id"])
    assert line["path"] == "/dashboard/invite/[redacted]/extra"
    text = "\n".join(new)
    assert tenant.api_key not in text
    assert "Inv1te" * 8 not in text
