"""A staff member's own account page (docs/staff-identity.md "Your account"): passkeys
(enrol several, name them, remove them), personal API tokens, recovery codes, and "sign out
everywhere". Forms carry the session's CSRF token; the passkey calls send it in a header."""

from __future__ import annotations

import hmac
import json
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import JSONResponse, Response

from gatehouse import accounts
from gatehouse.accounts import (
    CreatedPersonalToken,
    factors_of,
    renew_recovery_codes,
    sign_out_everywhere,
)
from gatehouse.dashboard.sessions import (
    Viewer,
    checked_form,
    clear_session_cookie,
    require_viewer,
)
from gatehouse.errors import GatehouseError
from gatehouse.web import browser
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.rendering import render, see_other

router = APIRouter(include_in_schema=False)

ACCOUNT = "/dashboard/account"
NOTICES = {
    "passkey": "Passkey added.",
    "removed": "Passkey removed.",
    "revoked": "Token revoked.",
}


async def render_account(
    request: Request,
    viewer: Viewer,
    *,
    errors: dict[str, str] | None = None,
    new_token: CreatedPersonalToken | None = None,
    status_code: int = 200,
) -> Response:
    runtime = runtime_of(request)
    staff_id = viewer.principal.staff_id
    async with runtime.db.read() as session:
        factors = await factors_of(session, staff_id)
    return render(
        request,
        "dashboard/account.html",
        {
            "viewer": viewer,
            "section": "account",
            "title": "Your account",
            "factors": factors,
            "passkeys": await accounts.passkeys_of(runtime, staff_id),
            "passkey_origin": accounts.relying_party(runtime.settings)[1],
            "tokens": (await accounts.list_tokens(runtime, staff_id))["data"],
            "new_token": new_token,
            "errors": errors or {},
            "notice": NOTICES.get(request.query_params.get("done") or ""),
        },
        status_code=status_code,
    )


@router.get(ACCOUNT)
async def account_page(request: Request) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    return await render_account(request, viewer)


async def _account_form(request: Request) -> tuple[Viewer, Any] | Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    form = await checked_form(request, viewer)
    if isinstance(form, Response):
        return form
    return viewer, form


@router.post(ACCOUNT + "/tokens")
async def create_token(request: Request) -> Response:
    guarded = await _account_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, form = guarded
    raw_days = str(form.get("expires_in_days") or "").strip()
    days = raw_days or None  # text: check_token_input reads it as an integer or refuses it
    try:
        created = await accounts.create_token(
            runtime_of(request),
            viewer.principal.staff_id,
            form.get("name"),
            days,
            write_context(request, viewer.principal),
        )
    except GatehouseError as error:
        field = "expires_in_days" if error.field == "expiresInDays" else "name"
        return await render_account(request, viewer, errors={field: error.message}, status_code=400)
    return await render_account(request, viewer, new_token=created)


@router.post(ACCOUNT + "/tokens/{token_id}/revoke")
async def revoke_token(token_id: str, request: Request) -> Response:
    guarded = await _account_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, _form = guarded
    try:
        await accounts.revoke_token(
            runtime_of(request),
            viewer.principal.staff_id,
            token_id,
            write_context(request, viewer.principal),
        )
    except GatehouseError as error:
        return await render_account(
            request, viewer, errors={"tokens": error.message}, status_code=404
        )
    return see_other(ACCOUNT + "?done=revoked")


@router.post(ACCOUNT + "/recovery-codes")
async def new_recovery_codes(request: Request) -> Response:
    guarded = await _account_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, _form = guarded
    codes = await renew_recovery_codes(
        runtime_of(request), viewer.principal.staff_id, write_context(request, viewer.principal)
    )
    return render(
        request,
        "dashboard/recovery_codes.html",
        {"viewer": viewer, "codes": codes, "next": ACCOUNT, "title": "Your recovery codes"},
    )


@router.post("/dashboard/sign-out-everywhere")
async def sign_out_all(request: Request) -> Response:
    guarded = await _account_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, _form = guarded
    await sign_out_everywhere(
        runtime_of(request), viewer.principal.staff_id, write_context(request, viewer.principal)
    )
    response = see_other("/dashboard/sign-in")
    clear_session_cookie(request, response)
    return response


@router.post(ACCOUNT + "/passkeys/{passkey_id}/remove")
async def remove_passkey(passkey_id: str, request: Request) -> Response:
    guarded = await _account_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, _form = guarded
    try:
        await accounts.remove_passkey(
            runtime_of(request),
            viewer.principal,
            passkey_id,
            write_context(request, viewer.principal),
        )
    except GatehouseError as error:
        return await render_account(
            request, viewer, errors={"passkeys": error.message}, status_code=404
        )
    return see_other(ACCOUNT + "?done=removed")


# The passkey calls of the page's script (JSON).


async def _json_viewer(request: Request) -> Viewer | JSONResponse:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return JSONResponse({"message": "Sign in again."}, status_code=401)
    sent = request.headers.get("x-csrf-token") or ""
    if not hmac.compare_digest(sent.encode(), viewer.csrf_token.encode()) or not (
        browser.same_origin(request, runtime_of(request).settings)
    ):
        return JSONResponse({"message": "Reload the page and try again."}, status_code=403)
    return viewer


@router.post(ACCOUNT + "/passkeys/options")
async def passkey_options(request: Request) -> Response:
    viewer = await _json_viewer(request)
    if isinstance(viewer, JSONResponse):
        return viewer
    body = await accounts.registration_options(
        runtime_of(request), viewer.principal, viewer.session_id
    )
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@router.post(ACCOUNT + "/passkeys")
async def passkey_enrol(request: Request) -> Response:
    viewer = await _json_viewer(request)
    if isinstance(viewer, JSONResponse):
        return viewer
    try:
        body = json.loads(await request.body())
    except (ValueError, RecursionError):  # RecursionError: nested deeper than Python recurses
        body = None
    if not isinstance(body, dict):
        return JSONResponse({"message": "Send a JSON object."}, status_code=400)
    try:
        added = await accounts.enrol_passkey(
            runtime_of(request),
            viewer.principal,
            viewer.session_id,
            body.get("name"),
            body.get("credential"),
            body.get("ticket"),
            write_context(request, viewer.principal),
        )
    except GatehouseError as error:
        return JSONResponse({"message": error.message}, status_code=400)
    return JSONResponse(added, status_code=201, headers={"Cache-Control": "no-store"})
