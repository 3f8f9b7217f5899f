"""Signing out of the dashboard (docs/staff-identity.md "Sessions"). Signing in lives in
dashboard/sign_in_routes.py, invites and enrolment in dashboard/invite_routes.py."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.dashboard.sessions import (
    checked_form,
    clear_session_cookie,
    end_session,
    require_viewer,
)
from gatehouse.web.rendering import see_other

router = APIRouter(include_in_schema=False)


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
