"""Calls of the application routes (docs/reference/tenant-api.md §5, §5)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from gatehouse_client._calls import (
    Call,
    Reconcile,
    Settled,
    app_path,
    data_items,
    drop_none,
    idempotency_key_for,
    normalize_external_ref,
    object_body,
    segment,
    timestamp_param,
)
from gatehouse_client._models import (
    AccessState,
    Application,
    ApplicationPage,
    ChecklistItem,
    Decision,
    Document,
    InfoRequest,
    Intake,
    LoginSession,
    Member,
)
from gatehouse_client._retry import Safety


def list_applications(
    *,
    limit: int | None = None,
    cursor: str | None = None,
    status: str | None = None,
    external_ref: str | None = None,
    updated_since: datetime | str | None = None,
) -> Call[ApplicationPage]:
    """GET /v1/applications: one page (docs/reference/tenant-api.md §5.11)."""
    params = drop_none(
        {
            "limit": str(limit) if limit is not None else None,
            "cursor": cursor,
            "status": status,
            "externalRef": external_ref,
            "updatedSince": timestamp_param(updated_since),
        }
    )
    return Call(
        "GET",
        "/v1/applications",
        lambda _s, b: ApplicationPage.from_json(object_body(b)),
        Safety.READ,
        params=params,
    )


def _provision_body(
    email: str,
    external_ref: str | None,
    company_name: str | None,
    label_id: str | None,
) -> dict[str, Any]:
    return drop_none(
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
    """POST /v1/applications (docs/reference/tenant-api.md §5.1): 201 created, 200 repeat.

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
        lambda s, b: Application.from_json(object_body(b), created=s == 201),
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
    """POST /v1/login-sessions (docs/reference/tenant-api.md §5.2): provisions and mints a link.

    Never repeated after an ambiguous failure (docs/reference/tenant-api.md §5.15 rule 2).
    """
    body = _provision_body(email, external_ref, company_name, label_id)
    if redirect_path is not None:
        body["redirectPath"] = redirect_path
    return Call(
        "POST",
        "/v1/login-sessions",
        lambda _s, b: LoginSession.from_json(object_body(b)),
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
    """POST /v1/applications/{clientId}/login-sessions (docs/reference/tenant-api.md §5.6)."""
    return Call(
        "POST",
        app_path(client_id, "login-sessions"),
        lambda _s, b: LoginSession.from_json(object_body(b)),
        Safety.NEVER,
        body=drop_none({"email": email, "redirectPath": redirect_path}),
        idempotency_key=idempotency_key_for(idempotency_key, True),
    )


def get_application(client_id: str) -> Call[Application]:
    """GET /v1/applications/{clientId} (docs/reference/tenant-api.md §5.3)."""
    return Call(
        "GET",
        app_path(client_id),
        lambda _s, b: Application.from_json(object_body(b)),
        Safety.READ,
    )


def add_member(
    client_id: str, email: str, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[Member]:
    """POST /v1/applications/{clientId}/members (docs/reference/tenant-api.md §5.7):
    safe to repeat.
    """
    return Call(
        "POST",
        app_path(client_id, "members"),
        lambda s, b: Member.from_json(object_body(b), created=s == 201),
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
    """DELETE /v1/applications/{clientId}/members/{uid} (docs/reference/tenant-api.md §5.8).

    A repeat answers 400 once the member is gone, so without a key an
    ambiguous failure reads the roster before repeating (docs/reference/tenant-api.md §5.15 rule 3).
    """
    key = idempotency_key_for(idempotency_key, idempotent)

    def settle(application: Application) -> Settled[None] | None:
        if application.members_included and all(m.uid != uid for m in application.members):
            return Settled(None)
        return None

    return Call(
        "DELETE",
        app_path(client_id, "members", segment(uid)),
        lambda _s, _b: None,
        Safety.KEYED,
        params=drop_none({"newOwnerUid": new_owner_uid}),
        idempotency_key=key,
        reconcile=Reconcile(get_application(client_id), settle) if key is None else None,
    )


def _access(client_id: str, action: str, key: str | None, idempotent: bool) -> Call[AccessState]:
    return Call(
        "POST",
        app_path(client_id, action),
        lambda _s, b: AccessState.from_json(object_body(b)),
        Safety.REPEATABLE,
        body={},
        idempotency_key=idempotency_key_for(key, idempotent),
    )


def lock(
    client_id: str, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[AccessState]:
    """POST /v1/applications/{clientId}/lock (docs/reference/tenant-api.md §5.9,
    docs/reference/tenant-api.md §5).
    """
    return _access(client_id, "lock", idempotency_key, idempotent)


def unlock(
    client_id: str, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[AccessState]:
    """POST /v1/applications/{clientId}/unlock (docs/reference/tenant-api.md §5.10,
    docs/reference/tenant-api.md §5).
    """
    return _access(client_id, "unlock", idempotency_key, idempotent)


def list_info_requests(client_id: str) -> Call[list[InfoRequest]]:
    """GET /v1/applications/{clientId}/info-requests (docs/reference/tenant-api.md §5.4),
    highest seq first.
    """
    return Call(
        "GET",
        app_path(client_id, "info-requests"),
        lambda _s, b: [InfoRequest.from_json(i) for i in data_items(b)],
        Safety.READ,
    )


def list_intakes() -> Call[list[Intake]]:
    """GET /v1/intakes (docs/reference/tenant-api.md §5.5)."""
    return Call(
        "GET",
        "/v1/intakes",
        lambda _s, b: [Intake.from_json(i) for i in data_items(b)],
        Safety.READ,
    )


def list_decisions(client_id: str) -> Call[list[Decision]]:
    """GET /v1/applications/{clientId}/decisions (docs/reference/tenant-api.md §5.12),
    newest first.
    """
    return Call(
        "GET",
        app_path(client_id, "decisions"),
        lambda _s, b: [Decision.from_json(i) for i in data_items(b)],
        Safety.READ,
    )


def get_checklist(client_id: str) -> Call[list[ChecklistItem]]:
    """GET /v1/applications/{clientId}/checklist (docs/reference/tenant-api.md §5.13)."""
    return Call(
        "GET",
        app_path(client_id, "checklist"),
        lambda _s, b: [ChecklistItem.from_json(i) for i in data_items(b)],
        Safety.READ,
    )


def list_documents(client_id: str) -> Call[list[Document]]:
    """GET /v1/applications/{clientId}/documents (docs/reference/tenant-api.md §5.14):
    metadata only.
    """
    return Call(
        "GET",
        app_path(client_id, "documents"),
        lambda _s, b: [Document.from_json(i) for i in data_items(b)],
        Safety.READ,
    )
