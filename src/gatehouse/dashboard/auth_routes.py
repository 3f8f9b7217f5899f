"""Dashboard sign-in and sign-out pages (issue 6)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.dashboard.rendering import render, see_other
from gatehouse.dashboard.sessions import (
    SignInRefused,
    checked_form,
    clear_session_cookie,
    current_viewer,
    end_session,
    require_viewer,
    safe_next,
    same_origin,
    set_session_cookie,
    sign_in,
)

router = APIRouter(include_in_schema=False)


@router.get("/dashboard/sign-in")
async def sign_in_page(request: Request) -> Response:
    next_path = safe_next(request.query_params.get("next"))
    if await current_viewer(request) is not None:
        return see_other(next_path)
    return render(request, "dashboard/sign_in.html", {"next": next_path, "errors": {}})


@router.post("/dashboard/sign-in")
async def sign_in_submit(request: Request) -> Response:
    form = await request.form()
    token = form.get("token")
    next_path = safe_next(str(form.get("next") or ""))
    errors: dict[str, str] = {}
    if not same_origin(request):
        errors["token"] = "Sign in from this site's own page."
    elif not isinstance(token, str) or not token.strip():
        errors["token"] = "Enter your staff token."
    else:
        try:
            cookie_value, _viewer = await sign_in(request, token)
        except SignInRefused:
            errors["token"] = "This token is not valid."
        else:
            response = see_other(next_path)
            set_session_cookie(request, response, cookie_value)
            return response
    return render(
        request,
        "dashboard/sign_in.html",
        {"next": next_path, "errors": errors},
        status_code=400,
    )


@router.post("/dashboard/sign-out")
async def sign_out(request: Request) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    form = await checked_form(request, viewer)
    if isinstance(form, Response):
        return form
    await end_session(request, viewer)
    response = see_other("/dashboard/sign-in")
    clear_session_cookie(request, response)
    return response
