"""Opaque cursors (http/cursors.py): integrity-protected with SECRET_KEY and
bound to the list and filters they were issued for (CONTRACT §1.3)."""

from __future__ import annotations

import base64

import orjson
import pytest

from gatehouse.crypto import Crypto
from gatehouse.http.cursors import decode_cursor, encode_cursor
from gatehouse.http.errors import ApiError

CRYPTO = Crypto("cursor-test-key-0123456789abcdef0123456789")
FILTERS = {"status": "pending", "externalRef": None}
POSITION = ["2026-11-22T10:00:00.000Z", "app_123"]


def refused(cursor: str, kind: str = "apps", filters: dict[str, object] | None = None) -> None:
    with pytest.raises(ApiError) as caught:
        decode_cursor(CRYPTO, kind, FILTERS if filters is None else filters, cursor)
    assert caught.value.status_code == 400
    assert caught.value.code == "invalid-argument"
    assert caught.value.details == [{"field": "cursor", "issue": "invalid cursor"}]


def test_round_trip() -> None:
    cursor = encode_cursor(CRYPTO, "apps", FILTERS, POSITION)
    assert "app_123" not in cursor and "pending" not in cursor  # opaque
    assert decode_cursor(CRYPTO, "apps", dict(reversed(FILTERS.items())), cursor) == POSITION


def test_tampered_cursor_is_refused() -> None:
    cursor = encode_cursor(CRYPTO, "apps", FILTERS, POSITION)
    body, _, signature = cursor.partition(".")
    payload = orjson.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    payload["p"] = ["2030-01-01T00:00:00.000Z", "app_999"]
    forged = base64.urlsafe_b64encode(orjson.dumps(payload)).decode().rstrip("=")
    refused(f"{forged}.{signature}")
    refused(cursor[:-2] + ("AA" if not cursor.endswith("AA") else "BB"))
    refused(body)  # no signature
    for junk in ("", ".", "not-a-cursor", "a.b.c", "%%%.###"):
        refused(junk)


def test_cursor_is_bound_to_its_filters_list_and_key() -> None:
    cursor = encode_cursor(CRYPTO, "apps", FILTERS, POSITION)
    refused(cursor, filters={"status": "active", "externalRef": None})
    refused(cursor, filters={})
    refused(cursor, kind="deliveries")
    other = Crypto("another-deployment-key-0123456789abcdef")
    with pytest.raises(ApiError):
        decode_cursor(other, "apps", FILTERS, cursor)


def test_signed_payload_of_the_wrong_shape_is_refused() -> None:
    body = base64.urlsafe_b64encode(orjson.dumps({"f": "x", "p": "nope"})).decode().rstrip("=")
    refused(f"{body}.{CRYPTO.sign(body.encode())}")
