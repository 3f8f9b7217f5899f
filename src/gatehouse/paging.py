"""Paging, one way for every list (docs/platform.md "Paging").

- `query_values` and `parse_page`: the query string of a list (unknown or repeated
  parameters, `limit`, `cursor`), from the raw values a surface passes in.
- `CursorScope`, `encode_cursor`, `decode_cursor`, `read_position`: opaque cursors. A cursor
  is the keyset position, MAC'd together with the list kind, who it was issued to and the
  filters it was issued with; any other cursor is 400 invalid-argument (field `cursor`).
- `keyset_after` and `page_of`: newest first (or oldest first) on (time, id), keyset-paged
  (never OFFSET), answered as `{data, nextCursor, hasMore}`.

Features use this module; it knows no HTTP.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

import orjson
from sqlalchemy import Select, literal, tuple_

from gatehouse.crypto import Crypto
from gatehouse.domain.numbers import parse_int
from gatehouse.errors import GatehouseError, invalid_argument

DEFAULT_LIMIT = 25
MAX_LIMIT = 100

Row = TypeVar("Row")
Stmt = TypeVar("Stmt", bound=Select[*tuple[Any, ...]])
Position = tuple[Any, ...]
"""A keyset position: (time, id) for most lists, (id,) for lists ordered by id alone."""
TIME_AND_ID: tuple[type, ...] = (datetime, str)
STAFF = "staff"
"""The owner of staff and dashboard lists' cursors (their filters name the tenant)."""


# Query strings.


def query_values(params: Iterable[tuple[str, str]], allowed: Iterable[str]) -> dict[str, str]:
    """The query parameters as a dict; an unknown or repeated one is 400 invalid-argument."""
    names = frozenset(allowed)
    values: dict[str, str] = {}
    for name, value in params:
        if name not in names:
            raise invalid_argument(f"Unknown query parameter {name}.", name, "unknown parameter")
        if name in values:
            raise invalid_argument(f"{name} is given more than once.", name, "repeated")
        values[name] = value
    return values


@dataclass(frozen=True, slots=True)
class PageRequest:
    """The page a client asked for: its size and where it starts (None: the first page)."""

    limit: int = DEFAULT_LIMIT
    cursor: str | None = None


def parse_page(
    limit: str | None, cursor: str | None, *, default_limit: int = DEFAULT_LIMIT
) -> PageRequest:
    """`limit` (an integer from 1 to 100, `default_limit` when absent) and `cursor`.

    Both come as the client sent them; an empty cursor is 400 like any invalid one.
    """
    size = default_limit if limit is None else parse_int(limit, "limit", 1, MAX_LIMIT)
    if cursor is not None and not cursor:
        raise _invalid_cursor()
    return PageRequest(size, cursor)


# Cursors.


@dataclass(frozen=True, slots=True)
class CursorScope:
    """What a cursor is valid for; all of it is covered by the cursor's MAC.

    `kind` names the list; `owner` is who the cursor was issued to (the tenant id for tenant
    lists, `STAFF` for staff and dashboard lists); `filters` are the list's filters (for
    staff lists they include `tenantId`; for a webhook's delivery history, the endpoint).
    `limit` is never part of it: it may change between pages.
    """

    kind: str
    owner: str
    filters: Mapping[str, Any] = field(default_factory=dict)

    def mac_input(self, body: str) -> bytes:
        bound = orjson.dumps(
            {"kind": self.kind, "owner": self.owner, "filters": dict(self.filters)},
            option=orjson.OPT_SORT_KEYS,
        )
        return b"gatehouse/cursor\x00" + bound + b"\x00" + body.encode()


def _invalid_cursor() -> GatehouseError:
    return invalid_argument("The cursor is not valid for this request.", "cursor", "invalid cursor")


def encode_cursor(crypto: Crypto, scope: CursorScope, position: Sequence[Any]) -> str:
    """An opaque cursor for `position`; datetimes are written at full precision."""
    values = [value.isoformat() if isinstance(value, datetime) else value for value in position]
    body = base64.urlsafe_b64encode(orjson.dumps(values)).decode().rstrip("=")
    return f"{body}.{crypto.sign(scope.mac_input(body))}"


def decode_cursor(crypto: Crypto, scope: CursorScope, cursor: str) -> list[Any]:
    """The raw position, or 400 invalid-argument for any cursor not issued for `scope`."""
    body, _, signature = cursor.partition(".")
    if not body or not signature or not crypto.verify_signature(scope.mac_input(body), signature):
        raise _invalid_cursor()
    try:
        position = orjson.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (ValueError, binascii.Error, orjson.JSONDecodeError):
        raise _invalid_cursor() from None
    if not isinstance(position, list):
        raise _invalid_cursor()
    return position


def read_position(
    crypto: Crypto,
    scope: CursorScope,
    cursor: str | None,
    shape: tuple[type, ...] = TIME_AND_ID,
) -> Position | None:
    """The position a cursor holds, checked against `shape`; None without a cursor."""
    if cursor is None:
        return None
    raw = decode_cursor(crypto, scope, cursor)
    if len(raw) != len(shape):
        raise _invalid_cursor()
    values: list[Any] = []
    for value, kind in zip(raw, shape, strict=True):
        if kind is datetime and isinstance(value, str):
            try:
                parsed = datetime.fromisoformat(value)
            except ValueError:
                raise _invalid_cursor() from None
            values.append(parsed)
        elif type(value) is kind and kind in (int, str):
            values.append(value)
        else:
            raise _invalid_cursor()
    return tuple(values)


# Keyset pages.


def keyset_after(
    stmt: Stmt, ts_col: Any, id_col: Any, position: Position | None, *, oldest_first: bool = False
) -> Stmt:
    """`stmt` ordered newest first on (ts_col, id_col), from just after `position`.

    `ts_col` None orders by `id_col` alone; `oldest_first` turns the order round (for lists
    a reader works through from the oldest, such as the staff queue). The position is compared
    as a row value, which both databases serve as one index range (an OR of two conditions
    made SQLite scan from the top); the binds are typed, so times go through the column's UTC
    handling. Add `.limit(page.limit + 1)` and hand the rows to `page_of`.
    """
    columns = (id_col,) if ts_col is None else (ts_col, id_col)
    if position is not None:
        if len(position) != len(columns):
            raise _invalid_cursor()
        binds = [literal(position[i], column.type) for i, column in enumerate(columns)]
        if len(columns) == 1:
            after = columns[0] > binds[0] if oldest_first else columns[0] < binds[0]
        elif oldest_first:
            after = tuple_(*columns) > tuple_(*binds)
        else:
            after = tuple_(*columns) < tuple_(*binds)
        stmt = stmt.where(after)
    return stmt.order_by(*(column.asc() if oldest_first else column.desc() for column in columns))


def page_of(
    rows: Sequence[Row],
    page: PageRequest,
    *,
    crypto: Crypto,
    scope: CursorScope,
    position_of: Callable[[Row], Position],
    view: Callable[[Row], Any],
) -> dict[str, Any]:
    """`{data, nextCursor, hasMore}` from up to `page.limit + 1` rows in keyset order."""
    has_more = len(rows) > page.limit
    shown = rows[: page.limit]
    next_cursor = None
    if has_more and shown:
        next_cursor = encode_cursor(crypto, scope, position_of(shown[-1]))
    return {"data": [view(row) for row in shown], "nextCursor": next_cursor, "hasMore": has_more}
