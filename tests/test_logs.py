"""Structured JSON logs with a request id, and the redaction filter (issue 2)."""

from __future__ import annotations

import io
import json
import logging

import httpx

from gatehouse.logs import REQUEST_ID, json_handler, redact
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
    assert entry["endpoint"] == "we_1" and entry["attempt"] == 2
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
    assert "s3cr3tvalue" not in text and "hunter22" not in text and '"name": "x"' in text


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
