"""Opaque cursors (gatehouse.paging): integrity-protected with SECRET_KEY and bound to the
list, the owner and the filters they were issued for (docs/reference/tenant-api.md §4.7)."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import orjson
import pytest

from gatehouse.crypto import Crypto
from gatehouse.errors import GatehouseError
from gatehouse.paging import STAFF, CursorScope, decode_cursor, encode_cursor, read_position

CRYPTO = Crypto("cursor-test-key-0123456789abcdef0123456789")
SCOPE = CursorScope("apps", "ten_a", {"status": "pending", "externalRef": None})
POSITION = ["2026-11-22T10:00:00.000Z", "app_123"]


def refused(cursor: str, scope: CursorScope = SCOPE) -> None:
    with pytest.raises(GatehouseError) as caught:
        read_position(CRYPTO, scope, cursor)
    assert caught.value.status_code == 400
    assert caught.value.code == "invalid-argument"
    assert caught.value.details == [{"field": "cursor", "issue": "invalid cursor"}]


def test_round_trip() -> None:
    cursor = encode_cursor(CRYPTO, SCOPE, POSITION)
    assert "app_123" not in cursor
    assert "pending" not in cursor
    reordered = CursorScope("apps", "ten_a", dict(reversed(list(SCOPE.filters.items()))))
    assert decode_cursor(CRYPTO, reordered, cursor) == POSITION


def test_times_keep_full_precision() -> None:
    at = datetime(2026, 11, 22, 10, 0, 0, 123456, tzinfo=UTC)
    cursor = encode_cursor(CRYPTO, SCOPE, (at, "app_1"))
    assert read_position(CRYPTO, SCOPE, cursor) == (at, "app_1")
    assert read_position(CRYPTO, SCOPE, None) is None


def test_tampered_cursor_is_refused() -> None:
    cursor = encode_cursor(CRYPTO, SCOPE, POSITION)
    body, _, signature = cursor.partition(".")
    forged = base64.urlsafe_b64encode(orjson.dumps(["2030-01-01T00:00:00Z", "app_9"]))
    refused(f"{forged.decode().rstrip('=')}.{signature}")
    refused(cursor[:-2] + ("AA" if not cursor.endswith("AA") else "BB"))
    refused(body)  # no signature
    for junk in ("", ".", "not-a-cursor", "a.b.c", "%%%.###"):
        refused(junk)


def test_cursor_is_bound_to_its_filters_owner_list_and_key() -> None:
    cursor = encode_cursor(CRYPTO, SCOPE, POSITION)
    refused(cursor, CursorScope("apps", "ten_a", {"status": "active", "externalRef": None}))
    refused(cursor, CursorScope("apps", "ten_a"))
    refused(cursor, CursorScope("apps", "ten_b", SCOPE.filters))
    refused(cursor, CursorScope("apps", STAFF, SCOPE.filters))
    refused(cursor, CursorScope("deliveries", "ten_a", SCOPE.filters))
    other = Crypto("another-deployment-key-0123456789abcdef")
    with pytest.raises(GatehouseError):
        decode_cursor(other, SCOPE, cursor)


def test_signed_position_of_the_wrong_shape_is_refused() -> None:
    def signed(position: object) -> str:
        body = base64.urlsafe_b64encode(orjson.dumps(position)).decode().rstrip("=")
        return f"{body}.{CRYPTO.sign(SCOPE.mac_input(body))}"

    assert read_position(CRYPTO, SCOPE, signed(POSITION)) is not None  # the helper is right
    for position in (
        "nope",
        {"p": POSITION},
        [],
        ["2026-11-22T10:00:00Z"],
        ["2026-11-22T10:00:00Z", "app_1", "extra"],
        ["yesterday", "app_1"],
        [12, "app_1"],
        ["2026-11-22T10:00:00Z", 7],
    ):
        refused(signed(position))
    assert read_position(CRYPTO, SCOPE, signed([7]), (int,)) == (7,)
    for position in (["7"], [True], [7.5], [None]):
        refused_int = signed(position)
        with pytest.raises(GatehouseError):
            read_position(CRYPTO, SCOPE, refused_int, (int,))
