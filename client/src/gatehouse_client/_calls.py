"""One description per tenant route (spec 1 §4, spec 2 §4, CONTRACT §1-§2).

A `Call` says what to send, how to read the answer and how safe it is to
repeat; `Client` and `AsyncClient` only execute it. Keeping the routes here
means the sync and async clients cannot drift apart.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from gatehouse_client._models import (
    AccessState,
    Application,
    ApplicationPage,
    ChecklistItem,
    Decision,
    Delivery,
    DeliveryPage,
    Document,
    InfoRequest,
    Intake,
    LoginSession,
    Member,
    RotatedSecret,
    WebhookEndpoint,
    WebhookTestResult,
    format_timestamp,
)
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
    otherwise the write is repeated (spec 1 §4.15 rule 1)."""

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

    It is reused by every retry of the call (CONTRACT §1.4); None when the
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


def _seg(value: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError("identifiers must be nonempty strings")
    return quote(value, safe="")


def _app_path(client_id: str, *rest: str) -> str:
    return "/".join(["/v1/applications", _seg(client_id), *rest])


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def _timestamp(value: datetime | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return format_timestamp(value)


def _data(body: Any) -> list[dict[str, Any]]:
    items = body.get("data") if isinstance(body, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _object(body: Any) -> dict[str, Any]:
    return body if isinstance(body, dict) else {}


def normalize_external_ref(external_ref: str | None) -> str | None:
    """externalRef as the server stores it: trimmed, cut to 200 (spec 1 §4.1)."""
    if external_ref is None:
        return None
    return external_ref.strip()[:EXTERNAL_REF_MAX]


# -- applications ---------------------------------------------------------------------------


def list_applications(
    *,
    limit: int | None = None,
    cursor: str | None = None,
    status: str | None = None,
    external_ref: str | None = None,
    updated_since: datetime | str | None = None,
) -> Call[ApplicationPage]:
    """GET /v1/applications: one page (spec 1 §4.11)."""
    params = _drop_none(
        {
            "limit": str(limit) if limit is not None else None,
            "cursor": cursor,
            "status": status,
            "externalRef": external_ref,
            "updatedSince": _timestamp(updated_since),
        }
    )
    return Call(
        "GET",
        "/v1/applications",
        lambda _s, b: ApplicationPage.from_json(_object(b)),
        Safety.READ,
        params=params,
    )


def _provision_body(
    email: str,
    external_ref: str | None,
    company_name: str | None,
    label_id: str | None,
) -> dict[str, Any]:
    return _drop_none(
        {
            "email": email,
            "externalRef": external_ref,
            "companyName": company_name,
            "labelId": label_id,
        }
    )


def _found_by_ref(ref: str) -> Callable[[ApplicationPage], Settled[Application] | None]:
    def settle(page: ApplicationPage) -> Settled[Application] | None:
        for application in page.data:
            if application.external_ref == ref:
                return Settled(application)
        return None

    return settle


def create_application(
    email: str,
    *,
    external_ref: str | None = None,
    company_name: str | None = None,
    label_id: str | None = None,
    idempotency_key: str | None = None,
    idempotent: bool = True,
) -> Call[Application]:
    """POST /v1/applications (spec 1 §4.1): 201 created, 200 repeat.

    Sent without a key, an ambiguous failure is reconciled with the list read
    by externalRef before the call is repeated.
    """
    key = idempotency_key_for(idempotency_key, idempotent)
    ref = normalize_external_ref(external_ref)
    reconcile: Reconcile[Any, Application] | None = None
    if key is None and ref:
        reconcile = Reconcile(list_applications(external_ref=ref, limit=1), _found_by_ref(ref))
    return Call(
        "POST",
        "/v1/applications",
        lambda s, b: Application.from_json(_object(b), created=s == 201),
        Safety.KEYED,
        body=_provision_body(email, external_ref, company_name, label_id),
        idempotency_key=key,
        reconcile=reconcile,
    )


def create_login_session(
    email: str,
    *,
    external_ref: str | None = None,
    company_name: str | None = None,
    label_id: str | None = None,
    redirect_path: str | None = None,
    idempotency_key: str | None = None,
) -> Call[LoginSession]:
    """POST /v1/login-sessions (spec 1 §4.2): provisions and mints a link.

    Never repeated after an ambiguous failure (spec 1 §4.15 rule 2).
    """
    body = _provision_body(email, external_ref, company_name, label_id)
    if redirect_path is not None:
        body["redirectPath"] = redirect_path
    return Call(
        "POST",
        "/v1/login-sessions",
        lambda _s, b: LoginSession.from_json(_object(b)),
        Safety.NEVER,
        body=body,
        idempotency_key=idempotency_key_for(idempotency_key, True),
    )


def create_application_login_session(
    client_id: str,
    *,
    email: str | None = None,
    redirect_path: str | None = None,
    idempotency_key: str | None = None,
) -> Call[LoginSession]:
    """POST /v1/applications/{clientId}/login-sessions (spec 1 §4.6)."""
    return Call(
        "POST",
        _app_path(client_id, "login-sessions"),
        lambda _s, b: LoginSession.from_json(_object(b)),
        Safety.NEVER,
        body=_drop_none({"email": email, "redirectPath": redirect_path}),
        idempotency_key=idempotency_key_for(idempotency_key, True),
    )


def get_application(client_id: str) -> Call[Application]:
    """GET /v1/applications/{clientId} (spec 1 §4.3)."""
    return Call(
        "GET",
        _app_path(client_id),
        lambda _s, b: Application.from_json(_object(b)),
        Safety.READ,
    )


def add_member(
    client_id: str, email: str, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[Member]:
    """POST /v1/applications/{clientId}/members (spec 1 §4.7): safe to repeat."""
    return Call(
        "POST",
        _app_path(client_id, "members"),
        lambda s, b: Member.from_json(_object(b), created=s == 201),
        Safety.REPEATABLE,
        body={"email": email},
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


def remove_member(
    client_id: str,
    uid: str,
    *,
    new_owner_uid: str | None = None,
    idempotency_key: str | None = None,
    idempotent: bool = True,
) -> Call[None]:
    """DELETE /v1/applications/{clientId}/members/{uid} (spec 1 §4.8).

    A repeat answers 400 once the member is gone, so without a key an
    ambiguous failure reads the roster before repeating (spec 1 §4.15 rule 3).
    """
    key = idempotency_key_for(idempotency_key, idempotent)

    def settle(application: Application) -> Settled[None] | None:
        if application.members_included and all(m.uid != uid for m in application.members):
            return Settled(None)
        return None

    return Call(
        "DELETE",
        _app_path(client_id, "members", _seg(uid)),
        lambda _s, _b: None,
        Safety.KEYED,
        params=_drop_none({"newOwnerUid": new_owner_uid}),
        idempotency_key=key,
        reconcile=Reconcile(get_application(client_id), settle) if key is None else None,
    )


def _access(client_id: str, action: str, key: str | None, idempotent: bool) -> Call[AccessState]:
    return Call(
        "POST",
        _app_path(client_id, action),
        lambda _s, b: AccessState.from_json(_object(b)),
        Safety.REPEATABLE,
        body={},
        idempotency_key=idempotency_key_for(key, idempotent),
    )


def lock(
    client_id: str, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[AccessState]:
    """POST /v1/applications/{clientId}/lock (spec 1 §4.9, CONTRACT §1.3)."""
    return _access(client_id, "lock", idempotency_key, idempotent)


def unlock(
    client_id: str, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[AccessState]:
    """POST /v1/applications/{clientId}/unlock (spec 1 §4.10, CONTRACT §1.3)."""
    return _access(client_id, "unlock", idempotency_key, idempotent)


def list_info_requests(client_id: str) -> Call[list[InfoRequest]]:
    """GET /v1/applications/{clientId}/info-requests (spec 1 §4.4), highest seq first."""
    return Call(
        "GET",
        _app_path(client_id, "info-requests"),
        lambda _s, b: [InfoRequest.from_json(i) for i in _data(b)],
        Safety.READ,
    )


def list_intakes() -> Call[list[Intake]]:
    """GET /v1/intakes (spec 1 §4.5)."""
    return Call(
        "GET", "/v1/intakes", lambda _s, b: [Intake.from_json(i) for i in _data(b)], Safety.READ
    )


def list_decisions(client_id: str) -> Call[list[Decision]]:
    """GET /v1/applications/{clientId}/decisions (spec 1 §4.12), newest first."""
    return Call(
        "GET",
        _app_path(client_id, "decisions"),
        lambda _s, b: [Decision.from_json(i) for i in _data(b)],
        Safety.READ,
    )


def get_checklist(client_id: str) -> Call[list[ChecklistItem]]:
    """GET /v1/applications/{clientId}/checklist (spec 1 §4.13)."""
    return Call(
        "GET",
        _app_path(client_id, "checklist"),
        lambda _s, b: [ChecklistItem.from_json(i) for i in _data(b)],
        Safety.READ,
    )


def list_documents(client_id: str) -> Call[list[Document]]:
    """GET /v1/applications/{clientId}/documents (spec 1 §4.14): metadata only."""
    return Call(
        "GET",
        _app_path(client_id, "documents"),
        lambda _s, b: [Document.from_json(i) for i in _data(b)],
        Safety.READ,
    )


# -- webhooks -------------------------------------------------------------------------------


def _hook_path(endpoint_id: str, *rest: str) -> str:
    return "/".join(["/v1/webhooks", _seg(endpoint_id), *rest])


def _endpoint(_status: int, body: Any) -> WebhookEndpoint:
    return WebhookEndpoint.from_json(_object(body))


def create_webhook(
    url: str,
    events: Sequence[str],
    *,
    description: str | None = None,
    idempotency_key: str | None = None,
    idempotent: bool = True,
) -> Call[WebhookEndpoint]:
    """POST /v1/webhooks (spec 2 §4.1): the answer holds the secret, once.

    Repeated only with its Idempotency-Key (the server replays the same
    endpoint and secret); without one an ambiguous failure raises
    AmbiguousResult: list and reconcile before creating again.
    """
    if isinstance(events, str):
        raise TypeError("events is a list of event types")
    return Call(
        "POST",
        "/v1/webhooks",
        _endpoint,
        Safety.KEYED,
        body=_drop_none({"url": url, "events": list(events), "description": description}),
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


def list_webhooks() -> Call[list[WebhookEndpoint]]:
    """GET /v1/webhooks (CONTRACT §2.1)."""
    return Call(
        "GET",
        "/v1/webhooks",
        lambda _s, b: [WebhookEndpoint.from_json(i) for i in _data(b)],
        Safety.READ,
    )


def get_webhook(endpoint_id: str) -> Call[WebhookEndpoint]:
    """GET /v1/webhooks/{id} (CONTRACT §2.1)."""
    return Call("GET", _hook_path(endpoint_id), _endpoint, Safety.READ)


def update_webhook(
    endpoint_id: str,
    *,
    url: str | None = None,
    events: Sequence[str] | None = None,
    description: str | None = None,
    idempotency_key: str | None = None,
    idempotent: bool = True,
) -> Call[WebhookEndpoint]:
    """PATCH /v1/webhooks/{id} (CONTRACT §2.1): only the given fields change."""
    if isinstance(events, str):
        raise TypeError("events is a list of event types")
    body = _drop_none(
        {
            "url": url,
            "events": list(events) if events is not None else None,
            "description": description,
        }
    )
    return Call(
        "PATCH",
        _hook_path(endpoint_id),
        _endpoint,
        Safety.KEYED,
        body=body,
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


def delete_webhook(
    endpoint_id: str, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[None]:
    """DELETE /v1/webhooks/{id} (CONTRACT §2.1): 204."""
    return Call(
        "DELETE",
        _hook_path(endpoint_id),
        lambda _s, _b: None,
        Safety.KEYED,
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


def set_webhook_enabled(
    endpoint_id: str, enabled: bool, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[WebhookEndpoint]:
    """POST /v1/webhooks/{id}/enable or /disable (CONTRACT §2.1): repeatable."""
    return Call(
        "POST",
        _hook_path(endpoint_id, "enable" if enabled else "disable"),
        _endpoint,
        Safety.REPEATABLE,
        body={},
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


def rotate_webhook_secret(
    endpoint_id: str, *, idempotency_key: str | None = None
) -> Call[RotatedSecret]:
    """POST /v1/webhooks/{id}/rotate-secret (spec 2 §4.3): never repeated blindly."""
    return Call(
        "POST",
        _hook_path(endpoint_id, "rotate-secret"),
        lambda _s, b: RotatedSecret.from_json(_object(b)),
        Safety.NEVER,
        body={},
        idempotency_key=idempotency_key_for(idempotency_key, True),
    )


def test_webhook(
    endpoint_id: str, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[WebhookTestResult]:
    """POST /v1/webhooks/{id}/test (spec 2 §4.4)."""
    return Call(
        "POST",
        _hook_path(endpoint_id, "test"),
        lambda _s, b: WebhookTestResult.from_json(_object(b)),
        Safety.KEYED,
        body={},
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


def list_webhook_deliveries(
    endpoint_id: str,
    *,
    limit: int | None = None,
    cursor: str | None = None,
    status: str | None = None,
) -> Call[DeliveryPage]:
    """GET /v1/webhooks/{id}/deliveries (CONTRACT §2.1), newest first."""
    params = _drop_none(
        {"limit": str(limit) if limit is not None else None, "cursor": cursor, "status": status}
    )
    return Call(
        "GET",
        _hook_path(endpoint_id, "deliveries"),
        lambda _s, b: DeliveryPage.from_json(_object(b)),
        Safety.READ,
        params=params,
    )


__all__ = ["Call", "Delivery", "Reconcile", "Settled"]
