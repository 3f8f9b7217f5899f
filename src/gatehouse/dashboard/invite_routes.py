"""Invite and enrolment pages (docs/staff-identity.md "The invite").

`GET /dashboard/invite/<token>` shows the password form and consumes nothing (link scanners
are safe); posting it uses the invite. A used, expired, revoked or unknown invite answers 410
with a page that does not say which. Then TOTP is enrolled (a QR code and the secret as text,
confirmed with a first code) and the recovery codes are shown once, with the first session.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.accounts import (
    Flow,
    InviteUnusable,
    SignInFailed,
    enrolment_of,
    finish_enrolment,
    open_invite,
    staff_email,
    use_invite,
)
from gatehouse.dashboard.sessions import set_session_cookie
from gatehouse.dashboard.sign_in_http import (
    anonymous_context,
    clear_flow_cookie,
    flow_form,
    flow_of,
    same_origin,
    set_flow_cookie,
    signed_in,
)
from gatehouse.errors import GatehouseError
from gatehouse.web.auth import runtime_of
from gatehouse.web.rendering import render, see_other
from gatehouse.web.text import read_form

router = APIRouter(include_in_schema=False)

ENROL = "/dashboard/enrol"


def _gone(request: Request) -> Response:
    return render(
        request, "dashboard/invite_gone.html", {"title": "Invite not valid"}, status_code=410
    )


def _invite_page(
    request: Request, email: str, *, errors: dict[str, str] | None = None, status_code: int = 200
) -> Response:
    return render(
        request,
        "dashboard/invite.html",
        {"email": email, "errors": errors or {}, "title": "Set your password"},
        status_code=status_code,
    )


@router.get("/dashboard/invite/{token}")
async def invite_form(token: str, request: Request) -> Response:
    try:
        invite = await open_invite(runtime_of(request), token)
    except InviteUnusable:
        return _gone(request)
    return _invite_page(request, invite.email)


@router.post("/dashboard/invite/{token}")
async def invite_submit(token: str, request: Request) -> Response:
    runtime = runtime_of(request)
    try:
        invite = await open_invite(runtime, token)
    except InviteUnusable:
        return _gone(request)
    form = await read_form(request)
    if not same_origin(request):
        return _invite_page(
            request,
            invite.email,
            errors={"password": "Set your password from this site's own page."},
            status_code=403,
        )
    password, confirm = form.get("password"), form.get("password_confirm")
    if not isinstance(password, str) or not password:
        return _invite_page(
            request, invite.email, errors={"password": "Enter a password."}, status_code=400
        )
    if password != confirm:
        return _invite_page(
            request,
            invite.email,
            errors={"password_confirm": "The two passwords differ."},
            status_code=400,
        )
    try:
        step = await use_invite(runtime, invite, password, anonymous_context(request))
    except InviteUnusable:
        return _gone(request)
    except GatehouseError as error:
        return _invite_page(
            request, invite.email, errors={"password": error.message}, status_code=400
        )
    if step.opened is not None:
        return signed_in(request, step.opened, "/dashboard")
    if step.flow_cookie is None:
        raise RuntimeError("an invite's step leads to a session or to enrolment")
    response = see_other(ENROL)
    set_flow_cookie(request, response, step.flow_cookie)
    return response


async def _enrol_page(
    request: Request, flow: Flow, *, error: str | None = None, status_code: int = 200
) -> Response:
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        email = await staff_email(session, flow.staff_id)
    enrolment = await enrolment_of(runtime, flow, email or "staff")
    return render(
        request,
        "dashboard/enrol.html",
        {
            "flow_csrf": flow.csrf_token,
            "enrolment": enrolment,
            "errors": {"code": error} if error else {},
            "title": "Set up your authenticator",
        },
        status_code=status_code,
    )


@router.get(ENROL)
async def enrol_form(request: Request) -> Response:
    flow = await flow_of(request, "enrol")
    if flow is None:
        return see_other("/dashboard/sign-in")
    return await _enrol_page(request, flow)


@router.post(ENROL)
async def enrol_submit(request: Request) -> Response:
    flow = await flow_of(request, "enrol")
    if flow is None:
        return see_other("/dashboard/sign-in")
    form = await flow_form(request, flow)
    if form is None:
        return await _enrol_page(
            request, flow, error="The form expired. Try again.", status_code=403
        )
    code = form.get("code")
    try:
        opened, codes = await finish_enrolment(
            runtime_of(request),
            flow,
            code if isinstance(code, str) else "",
            anonymous_context(request),
        )
    except SignInFailed as failed:
        if failed.flow_ended:
            return see_other("/dashboard/sign-in")
        return await _enrol_page(
            request,
            flow,
            error="That code did not match. Check the time on your phone and try the new code.",
            status_code=400,
        )
    response = render(
        request,
        "dashboard/recovery_codes.html",
        {"codes": codes, "next": flow.next_path, "title": "Your recovery codes", "first": True},
    )
    set_session_cookie(request, response, opened.cookie_value)
    clear_flow_cookie(request, response)
    return response
