"""The sign-in pages: email and password, then a code or a passkey, or single sign-on
(docs/staff-identity.md "Signing in"). A staff token never opens a session here."""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import JSONResponse, Response

from gatehouse import accounts
from gatehouse.accounts import Flow, SignInFailed, code_step, passkey_count, password_step
from gatehouse.dashboard.sessions import current_viewer, set_session_cookie
from gatehouse.dashboard.sign_in_http import (
    SIGN_IN_FAILED,
    address_refused,
    anonymous_context,
    clear_flow_cookie,
    csrf_matches,
    flow_form,
    flow_of,
    safe_next,
    same_origin,
    set_flow_cookie,
    signed_in,
)
from gatehouse.web.auth import runtime_of
from gatehouse.web.rendering import PAGE_HEADERS, render, see_other
from gatehouse.web.text import read_form

router = APIRouter(include_in_schema=False)

SIGN_IN = "/dashboard/sign-in"
VERIFY = "/dashboard/sign-in/verify"
ENROL = "/dashboard/enrol"
JSON_HEADERS = {"Cache-Control": "no-store"}
# The single sign-on client's own logger (accounts/oidc.py), so its lines read as one.
oidc_log = logging.getLogger("gatehouse.oidc")


def sign_in_page(
    request: Request,
    *,
    next_path: str = "/dashboard",
    email: str = "",
    problem: str | None = None,
    status_code: int = 200,
) -> Response:
    settings = runtime_of(request).settings
    return render(
        request,
        "dashboard/sign_in.html",
        {
            "next": next_path,
            "email": email,
            "problem": problem,
            "errors": {},
            "oidc": settings.oidc_enabled,
            "title": "Sign in",
        },
        status_code=status_code,
    )


@router.get(SIGN_IN)
async def sign_in_form(request: Request) -> Response:
    next_path = safe_next(request.query_params.get("next"))
    if await current_viewer(request) is not None:
        return see_other(next_path)
    return sign_in_page(request, next_path=next_path)


@router.post(SIGN_IN)
async def sign_in_submit(request: Request) -> Response:
    form = await read_form(request)
    next_path = safe_next(form.get("next"))
    email, password = form.get("email"), form.get("password")
    shown = email.strip()[:320] if isinstance(email, str) else ""
    if not same_origin(request):
        return sign_in_page(
            request,
            next_path=next_path,
            problem="Sign in from this site's own page.",
            status_code=403,
        )
    refused = await address_refused(request)
    if refused is not None:
        return refused
    if not isinstance(email, str) or not isinstance(password, str) or not email or not password:
        return sign_in_page(
            request,
            next_path=next_path,
            email=shown,
            problem="Enter your email and your password.",
            status_code=400,
        )
    try:
        step = await password_step(
            runtime_of(request), email, password, next_path, anonymous_context(request)
        )
    except SignInFailed:
        return sign_in_page(
            request, next_path=next_path, email=shown, problem=SIGN_IN_FAILED, status_code=400
        )
    if step.opened is not None:
        return signed_in(request, step.opened, next_path)
    if step.flow is None or step.flow_cookie is None:
        raise RuntimeError("a password step leads to a session or to a flow")
    response = see_other(VERIFY if step.flow.purpose == "second_factor" else ENROL)
    set_flow_cookie(request, response, step.flow_cookie)
    return response


async def _verify_page(
    request: Request, flow: Flow, *, error: str | None = None, status_code: int = 200
) -> Response:
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        count = await passkey_count(session, flow.staff_id)
    return render(
        request,
        "dashboard/sign_in_verify.html",
        {
            "flow_csrf": flow.csrf_token,
            "has_passkeys": bool(count),
            "passkey_origin": accounts.relying_party(runtime.settings)[1],
            "errors": {"code": error} if error else {},
            "title": "Second step",
        },
        status_code=status_code,
    )


@router.get(VERIFY)
async def verify_form(request: Request) -> Response:
    flow = await flow_of(request, "second_factor")
    if flow is None:
        return see_other(SIGN_IN)
    return await _verify_page(request, flow)


@router.post(VERIFY)
async def verify_submit(request: Request) -> Response:
    flow = await flow_of(request, "second_factor")
    if flow is None:
        return sign_in_page(request, problem=SIGN_IN_FAILED, status_code=400)
    form = await flow_form(request, flow)
    if form is None:
        return await _verify_page(
            request, flow, error="The form expired. Try again.", status_code=403
        )
    refused = await address_refused(request)
    if refused is not None:
        return refused
    code = form.get("code")
    try:
        opened = await code_step(
            runtime_of(request),
            flow,
            code if isinstance(code, str) else "",
            anonymous_context(request),
        )
    except SignInFailed as failed:
        if failed.flow_ended:
            response = sign_in_page(request, problem=SIGN_IN_FAILED, status_code=400)
            clear_flow_cookie(request, response)
            return response
        return await _verify_page(request, flow, error=SIGN_IN_FAILED, status_code=400)
    return signed_in(request, opened, flow.next_path)


def _json(status: int, body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=JSON_HEADERS)


async def _json_body(request: Request) -> dict[str, Any] | None:
    try:
        body = json.loads(await request.body())
    except (ValueError, RecursionError):  # RecursionError: nested deeper than Python recurses
        return None
    return body if isinstance(body, dict) else None


@router.post("/dashboard/sign-in/passkey/options")
async def passkey_options(request: Request) -> Response:
    """The WebAuthn request options of the second step (JSON, flow CSRF in a header)."""
    flow = await flow_of(request, "second_factor")
    if (
        flow is None
        or not csrf_matches(request.headers.get("x-csrf-token"), flow)
        or not same_origin(request)
    ):
        return _json(403, {"message": SIGN_IN_FAILED, "restart": flow is None})
    challenge = await accounts.sign_in_options(runtime_of(request), flow)
    return _json(200, {"options": challenge.options})


@router.post("/dashboard/sign-in/passkey")
async def passkey_submit(request: Request) -> Response:
    """Step two with a passkey: `{credential}` → `{redirect}` and the session cookie."""
    flow = await flow_of(request, "second_factor")
    if (
        flow is None
        or not csrf_matches(request.headers.get("x-csrf-token"), flow)
        or not same_origin(request)
    ):
        return _json(403, {"message": SIGN_IN_FAILED, "restart": flow is None})
    refused = await address_refused(request)
    if refused is not None:
        return _json(429, {"message": "Too many sign-in attempts. Wait a minute."})
    body = await _json_body(request)
    try:
        opened = await accounts.passkey_step(
            runtime_of(request),
            flow,
            body.get("credential") if body else None,
            anonymous_context(request),
        )
    except SignInFailed as failed:
        response = _json(400, {"message": SIGN_IN_FAILED, "restart": failed.flow_ended})
        if failed.flow_ended:
            clear_flow_cookie(request, response)
        return response
    response = _json(200, {"redirect": flow.next_path})
    set_session_cookie(request, response, opened.cookie_value)
    clear_flow_cookie(request, response)
    return response


# Single sign-on.


@router.get("/dashboard/sign-in/oidc")
async def oidc_start(request: Request) -> Response:
    """Begin single sign-on: a link, not a form, since the page's `form-action 'self'` would
    stop a form's redirect to the provider. Starting signs nobody in; it counts against the
    address's sign-in attempts."""
    runtime = runtime_of(request)
    if not runtime.settings.oidc_enabled:
        return sign_in_page(request, problem="Single sign-on is not set up.", status_code=404)
    next_path = safe_next(request.query_params.get("next"))
    refused = await address_refused(request)
    if refused is not None:
        return refused
    try:
        cookie, _flow, url = await accounts.start_single_sign_on(runtime, next_path)
    except accounts.ProviderUnavailable:
        oidc_log.warning("single sign-on provider unavailable", exc_info=True)
        return sign_in_page(
            request,
            next_path=next_path,
            problem="Single sign-on is not available right now. Try again later.",
            status_code=503,
        )
    response = see_other(url)
    set_flow_cookie(request, response, cookie)
    return response


@router.get(accounts.CALLBACK_PATH)
async def oidc_callback(request: Request) -> Response:
    runtime = runtime_of(request)
    flow = await flow_of(request, "oidc")
    refused_text = "Single sign-on did not sign you in. Ask an administrator for access."
    if flow is None or not runtime.settings.oidc_enabled:
        return sign_in_page(request, problem=refused_text, status_code=400)
    params = {k: v for k, v in request.query_params.items() if k in ("code", "state", "error")}
    try:
        opened = await accounts.finish_single_sign_on(
            runtime, flow, params, anonymous_context(request)
        )
    except SignInFailed:
        response = sign_in_page(request, problem=refused_text, status_code=403)
        clear_flow_cookie(request, response)
        return response
    except accounts.ProviderUnavailable:
        oidc_log.warning("single sign-on provider unavailable", exc_info=True)
        return sign_in_page(
            request,
            problem="Single sign-on is not available right now. Try again later.",
            status_code=503,
        )
    # The browser arrives here from the provider's site: a SameSite=Strict cookie set now is
    # not sent on a redirect of this navigation, so a page of ours moves on by itself.
    response = render(
        request,
        "dashboard/signed_in.html",
        {"next": flow.next_path, "title": "Signed in"},
        headers=PAGE_HEADERS,
    )
    set_session_cookie(request, response, opened.cookie_value)
    clear_flow_cookie(request, response)
    return response
