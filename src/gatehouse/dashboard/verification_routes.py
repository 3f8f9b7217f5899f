"""The verification page of the dashboard (issue 6; CONTRACT §3, §4): clients
(secret shown once), customers and their status changes, the callback log."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse.dashboard.rendering import render, see_other
from gatehouse.dashboard.sessions import Viewer, checked_form, require_viewer
from gatehouse.domain.verification import EMITTED_STATUSES, status_name
from gatehouse.http.auth import runtime_of
from gatehouse.http.errors import ApiError, request_id_of
from gatehouse.verification import clients, customers, listing, schemas

router = APIRouter(include_in_schema=False)

LIST_SIZE = 50
DOCUMENT_TYPES = (
    ("", "None"),
    ("passport", "Passport"),
    ("emirates_id", "Emirates ID"),
    ("egypt_national_id", "Egypt national ID"),
)


def _text(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


async def render_verification(
    request: Request,
    viewer: Viewer,
    *,
    errors: dict[str, str] | None = None,
    form: dict[str, Any] | None = None,
    new_client: dict[str, Any] | None = None,
    status_code: int = 200,
) -> Response:
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        client_list = await clients.list_clients(session)
        customer_page = await listing.list_customers(
            session, runtime.crypto, listing.CustomerFilters(), LIST_SIZE, None
        )
        callback_page = await listing.list_callbacks(
            session, runtime.crypto, listing.CallbackFilters(), LIST_SIZE, None
        )
    settable = [(str(code), f"{code} · {status_name(code)}") for code in sorted(EMITTED_STATUSES)]
    return render(
        request,
        "dashboard/verification.html",
        {
            "viewer": viewer,
            "section": "verification",
            "title": "Verification",
            "clients": client_list,
            "client_choices": [(c["clientUuid"], c["name"]) for c in client_list],
            "customers": customer_page["data"],
            "callbacks": callback_page["data"],
            "settable": settable,
            "document_types": DOCUMENT_TYPES,
            "errors": errors or {},
            "form": form or {},
            "new_client": new_client,
            "can_admin": viewer.principal.at_least("admin"),
            "notice": _NOTICES.get(request.query_params.get("done") or ""),
        },
        status_code=status_code,
        headers={"Cache-Control": "no-store"},
    )


_NOTICES = {"customer": "Customer created.", "status": "Status changed; the callback is queued."}


@router.get("/dashboard/verification")
async def verification_page(request: Request) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    return await render_verification(request, viewer)


@router.post("/dashboard/verification/clients")
async def new_client(request: Request) -> Response:
    viewer = await require_viewer(request, "admin")
    if isinstance(viewer, Response):
        return viewer
    form = await checked_form(request, viewer)
    if isinstance(form, Response):
        return form
    name = _text(form, "client_name")
    if not name or len(name) > 200:
        return await render_verification(
            request,
            viewer,
            errors={"client_name": "Enter a name of 1 to 200 characters."},
            status_code=400,
        )
    runtime = runtime_of(request)
    async with runtime.db.write() as session:
        created = await clients.create_client(
            session,
            runtime,
            name=name,
            customer_created_events=form.get("customer_created_events") == "yes",
            actor=viewer.principal.actor,
            request_id=request_id_of(request),
        )
    # The secret is shown on this answer only; it is stored hashed.
    return await render_verification(request, viewer, new_client=created, status_code=201)


@router.post("/dashboard/verification/customers")
async def new_customer(request: Request) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    form = await checked_form(request, viewer)
    if isinstance(form, Response):
        return form
    runtime = runtime_of(request)
    document_type = _text(form, "document_type")
    expires = _text(form, "document_expires")
    documents = (
        [schemas.DocumentCreate(type=document_type, expiresAt=expires)] if document_type else None
    )
    try:
        body = schemas.CustomerCreate(
            clientUuid=_text(form, "clientUuid"),
            email=_text(form, "email"),
            phone=_text(form, "phone"),
            clientId=_text(form, "clientId") or None,
            documents=documents,
        )
        data = schemas.customer_input(body)
        async with runtime.db.write() as session:
            await customers.create_customer(
                session,
                runtime,
                data,
                actor=viewer.principal.actor,
                request_id=request_id_of(request),
            )
    except customers.CustomerInputError as exc:
        return await render_verification(
            request, viewer, errors={exc.field: str(exc)}, form=dict(form), status_code=400
        )
    except ApiError as error:
        field = (error.details or [{}])[0].get("field", "email")
        if field.startswith("documents"):
            field = "document_expires" if field.endswith("expiresAt") else "document_type"
        return await render_verification(
            request, viewer, errors={field: error.message}, form=dict(form), status_code=400
        )
    return see_other("/dashboard/verification?done=customer")


@router.post("/dashboard/verification/customers/{customer_uuid}/status")
async def change_status(request: Request, customer_uuid: str) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    form = await checked_form(request, viewer)
    if isinstance(form, Response):
        return form
    runtime = runtime_of(request)
    raw = _text(form, "status")
    try:
        async with runtime.db.write() as session:
            await customers.change_status(
                session,
                runtime,
                customer_uuid,
                int(raw) if raw.isdigit() else -1,
                _text(form, "reason") or None,
                actor=viewer.principal.actor,
                request_id=request_id_of(request),
            )
    except customers.CustomerInputError as exc:
        return await render_verification(
            request, viewer, errors={f"status_{customer_uuid}": str(exc)}, status_code=400
        )
    except customers.CustomerNotFound:
        return await render_verification(
            request, viewer, errors={"customers": "No such customer."}, status_code=404
        )
    return see_other("/dashboard/verification?done=status")
