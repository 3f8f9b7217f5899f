"""The description of one API call, shared by every route module.

A `Call` says what to send, how to read the answer and how safe it is to
repeat; `Client` and `AsyncClient` only execute it. Keeping the routes here
means the sync and async clients cannot drift apart.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from gatehouse_client._fields import format_timestamp
from gatehouse_client._retry import Safety

T = TypeVar("T")
R = TypeVar("R")

EXTERNAL_REF_MAX = 200


@dataclass(frozen=True)
class Settled(Generic[T]):
    """The outcome a reconciling read established."""

    value: T


@dataclass(frozen=True)
class Reconcile(Generic[R, T]):
    """After an ambiguous failure without an Idempotency-Key: run `read`; when
    `settle` finds the write took effect, its value is the call's result,
    otherwise the write is repeated (docs/reference/tenant-api.md §5.15 rule 1)."""

    read: Call[R]
    settle: Callable[[R], Settled[T] | None]


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    parse: Callable[[int, Any], T]
    safety: Safety
    params: dict[str, str] | None = None
    body: dict[str, Any] | None = None
    idempotency_key: str | None = None
    reconcile: Reconcile[Any, T] | None = None


def idempotency_key_for(key: str | None, idempotent: bool) -> str | None:
    """The key for one logical call: the caller's, or one generated once now.

    It is reused by every retry of the call (docs/reference/tenant-api.md §4.6); None when the
    caller turned idempotency off.
    """
    if not idempotent:
        if key is not None:
            raise ValueError("idempotency_key given with idempotent=False")
        return None
    if key is None:
        return f"gh-{uuid.uuid4().hex}"
    if not key or len(key) > 255 or any(not (32 <= ord(c) <= 126) for c in key):
        raise ValueError("an Idempotency-Key is 1 to 255 printable ASCII characters")
    return key


def segment(value: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError("identifiers must be nonempty strings")
    return quote(value, safe="")


def app_path(client_id: str, *rest: str) -> str:
    return "/".join(["/v1/applications", segment(client_id), *rest])


def drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def timestamp_param(value: datetime | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return format_timestamp(value)


def data_items(body: Any) -> list[dict[str, Any]]:
    items = body.get("data") if isinstance(body, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def object_body(body: Any) -> dict[str, Any]:
    return body if isinstance(body, dict) else {}


def normalize_external_ref(external_ref: str | None) -> str | None:
    """externalRef as the server stores it: trimmed, cut to 200
    (docs/reference/tenant-api.md §5.1).
    """
    if external_ref is None:
        return None
    return external_ref.strip()[:EXTERNAL_REF_MAX]


__all__ = ["Call", "Reconcile", "Settled", "idempotency_key_for"]
