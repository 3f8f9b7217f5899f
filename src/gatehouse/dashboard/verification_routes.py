"""The verification page of the dashboard: clients (secret shown once), customers and their
status changes, the callback log (docs/portal-and-dashboard.md; docs/reference/staff-api.md §8)."""

from __future__ import annotations

from functools import partial
from typing import Any

from fastapi import APIRouter, Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse import verification
from gatehouse.dashboard.forms import Refused, form_action
from gatehouse.dashboard.sessions import Viewer, require_viewer
from gatehouse.domain.numbers import parse_int
from gatehouse.domain.principals import Role
from gatehouse.domain.verification import (
    EMITTED_STATUSES,
    HIGHEST_STATUS,
    LOWEST_STATUS,
    status_name,
)
from gatehouse.errors import invalid_argument
from gatehouse.paging import PageRequest
from gatehouse.verification import CreatedVerificationClient
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.rendering import render, see_other

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
    new_client: CreatedVerificationClient | None = None,
    status_code: int = 200,
) -> Response:
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        client_list = await verification.list_clients(session)
        customer_page = await verification.list_customers(
            session, runtime.crypto, verification.CustomerFilters(), PageRequest(LIST_SIZE)
        )
        callback_page = await verification.list_callbacks(
            session, runtime.crypto, verification.CallbackFilters(), PageRequest(LIST_SIZE)
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
            "can_admin": viewer.principal.at_least(Role.ADMIN),
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


async def _again(request: Request, viewer: Viewer, form: FormData, refused: Refused) -> Response:
    """The verification page again, with a refused form's error beside its field."""
    return await render_verification(
        request, viewer, errors=refused.errors, form=dict(form), status_code=refused.status_code
    )


@router.post("/dashboard/verification/clients")
async def new_client(request: Request) -> Response:
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        name = _text(form, "client_name")
        if not name or len(name) > 200:
            raise invalid_argument("Enter a name of 1 to 200 characters.", "client_name")
        async with runtime.db.write() as session:
            created = await verification.create_client(
                session,
                runtime,
                write_context(request, viewer.principal),
                name=name,
                customer_created_events=form.get("customer_created_events") == "yes",
                sandbox=form.get("sandbox") == "yes",
            )
        # The secret is shown on this answer only; it is stored hashed.
        return await render_verification(request, viewer, new_client=created, status_code=201)

    again = partial(_again, request)
    return await form_action(
        request, again, run, role=Role.ADMIN, fields={"client_name": "client_name"}
    )


# The new-customer form's fields, by the names the service gives them.
_CUSTOMER_FIELDS = {
    **{name: name for name in ("clientUuid", "email", "phone", "clientId")},
    "documents.0.type": "document_type",
    "documents.0.expiresAt": "document_expires",
}


@router.post("/dashboard/verification/customers")
async def new_customer(request: Request) -> Response:
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        document_type = _text(form, "document_type")
        expires = _text(form, "document_expires")
        documents = (
            [verification.DocumentCreate(type=document_type, expiresAt=expires)]
            if document_type
            else None
        )
        body = verification.CustomerCreate(
            clientUuid=_text(form, "clientUuid"),
            email=_text(form, "email"),
            phone=_text(form, "phone"),
            clientId=_text(form, "clientId") or None,
            documents=documents,
        )
        data = verification.customer_input(body)
        async with runtime.db.write() as session:
            ctx = write_context(request, viewer.principal)
            await verification.create_customer(session, runtime, ctx, data)
        return see_other("/dashboard/verification?done=customer")

    again = partial(_again, request)
    return await form_action(request, again, run, fields=_CUSTOMER_FIELDS, default="email")


@router.post("/dashboard/verification/customers/{customer_uuid}/status")
async def change_status(request: Request, customer_uuid: str) -> Response:
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        status = parse_int(_text(form, "status"), "status", LOWEST_STATUS, HIGHEST_STATUS)
        async with runtime.db.write() as session:
            await verification.change_status(
                session,
                runtime,
                write_context(request, viewer.principal),
                customer_uuid,
                status,
                _text(form, "reason") or None,
            )
        return see_other("/dashboard/verification?done=status")

    again = partial(_again, request)
    fields = {"status": f"status_{customer_uuid}"}
    return await form_action(request, again, run, fields=fields, default="customers")
