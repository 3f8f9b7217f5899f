"""The applicant portal's pages (docs/reference/portal.md §3, §4; docs/portal-and-dashboard.md).

`GET /portal/login/{token}` shows a Continue button that posts to the same
URL and consumes nothing (the POST, in `portal/api.py`, redeems the link).
The five pages named by redirectPath act for the session's member through
the same session check as the JSON routes; their forms post to `portal/forms.py`.
Every page speaks the reader's language and shows the tenant's branding
(`portal/locale.py`; docs/reference/portal.md, "Languages", "Branding").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse import applicants
from gatehouse.accounts import Branding, link_branding, portal_branding
from gatehouse.applicants import PortalContext, landing_path
from gatehouse.domain.checklist import label_in
from gatehouse.errors import GatehouseError
from gatehouse.portal import texts
from gatehouse.portal.locale import gettext_for, language_for, render_portal
from gatehouse.portal.session_http import portal_user
from gatehouse.sandbox import is_sandbox_tenant, link_in_sandbox
from gatehouse.web.auth import runtime_of
from gatehouse.web.i18n import N_
from gatehouse.web.rendering import see_other

router = APIRouter(include_in_schema=False)

LINK_INVALID_TEMPLATE = "portal/link_invalid.html"


def render_link_invalid(request: Request) -> Response:
    """410: a used, expired, revoked or locked link; the page never says which (nor whose)."""
    context = {"me": None, "here": None}
    return render_portal(request, LINK_INVALID_TEMPLATE, context, status_code=410)


def render_signed_out(
    request: Request,
    heading: str,
    message: str,
    *,
    status_code: int = 200,
    branding: Branding | None = None,
    sandbox: bool = False,
) -> Response:
    """A page with a heading and a message only (both given untranslated)."""
    say = gettext_for(request)
    context = {"me": None, "heading": say(heading), "message": say(message), "sandbox": sandbox}
    return render_portal(
        request, "portal/signed_out.html", context, status_code=status_code, branding=branding
    )


@router.get("/portal/login/{token}")
async def login_interstitial(request: Request, token: str) -> Response:
    """A page with a Continue button; link scanners that GET it consume nothing.

    A link that can no longer be used answers the same 410 page as the POST."""
    runtime = runtime_of(request)
    if not await applicants.link_usable(runtime, token):
        return render_link_invalid(request)
    sandbox = await link_in_sandbox(runtime, token)
    return render_portal(
        request,
        "portal/login.html",
        {"me": None, "token": token, "sandbox": sandbox},
        branding=await link_branding(runtime, token),
    )


async def member_or_page(request: Request) -> PortalContext | Response:
    """The session's member, or the page to show instead (401 signed out, 403 no access)."""
    try:
        return await portal_user(request)
    except GatehouseError as error:
        if error.status_code == 401:
            heading, message = texts.SIGNED_OUT, texts.SIGNED_OUT_HELP
        else:
            heading, message = texts.NO_ACCESS, texts.NO_ACCESS_HELP
        return render_signed_out(request, heading, message, status_code=error.status_code)


# The address a refused Submit redirects to (Post/Redirect/Get): the draft is saved by
# then, so the page recomputes what is missing from it, and a reload replays nothing.
REFUSED_SUBMIT = "/portal/form-parser?refused=submit"


def refused_submit(
    request: Request, fields: list[dict[str, Any]], application: Any
) -> dict[str, Any]:
    """The form page's errors after a refused Submit (`REFUSED_SUBMIT`), from the saved
    draft; nothing when the address does not say so or the form is already submitted."""
    query = request.query_params
    if query.get("refused") != "submit" or application.submitted_at is not None:
        return {}
    say = gettext_for(request)
    missing = applicants.missing_required(fields, application)
    errors = {name: say(texts.FILL_IN) for name in missing}
    confirmed = query.get("confirm") == "yes"
    if not confirmed:
        errors["confirm"] = say(texts.CONFIRM)
    if not errors:
        return {}
    values = {**applicants.form_values(application), "confirm": confirmed}
    return {"errors": errors, "values": values, "problem": say(texts.NOT_SUBMITTED)}


async def render_page(
    request: Request,
    user: PortalContext,
    page: tuple[str, str, str],
    *,
    status_code: int = 200,
    **extra: Any,
) -> Response:
    """One of the state pages (`STATE_PAGES` value: template, nav key, title) for `user`."""
    template, section, title = page
    runtime = runtime_of(request)
    say = gettext_for(request)
    notice = texts.NOTICES.get(request.query_params.get("done") or "")
    async with runtime.db.read() as session:
        view = await applicants.load_view(session, user, with_documents=section == "documents")
        language = language_for(request).code
        if section in ("dashboard", "documents"):
            translated = await applicants.checklist_labels_of(session, view.application)
            for item in view.checklist:
                item["label"] = label_in(item, language, translated.get(str(item.get("key"))))
        context: dict[str, Any] = {
            "me": view.me,
            "view": view,
            "section": section,
            "title": title,
            "plain_status": view.plain_status,
            "status_title": view.status_title,
            "notice": say(notice) if notice else None,
            "errors": {},
            "values": {},
            "sandbox": await is_sandbox_tenant(runtime, user.tenant_id),
            # File inputs carry the limit so the page's script refuses a larger file
            # before it is sent (static/portal.js).
            "upload_max_bytes": runtime.settings.upload_max_bytes,
        }
        if section == "status":
            context["latest_comment"] = await applicants.latest_comment(
                session, user.application_id
            )
            context["rejection_reason"] = view.me.rejection_reason
        if section == "form":
            fields = await applicants.form_fields_of(session, view.application)
            context["fields"] = [{**entry, "label": label_in(entry, language)} for entry in fields]
            context["values"] = applicants.form_values(view.application)
            context.update(refused_submit(request, fields, view.application))
    if section in ("dashboard", "documents"):
        uploads = applicants.uploads_by_type(view.documents)
        context["checklist"] = [
            {**item, "uploads": uploads.get(str(item.get("key")), [])} for item in view.checklist
        ]
        context["owed"] = view.owed()
        context["by_others"] = view.by_others()
        context["satisfied_required"] = view.satisfied_required
        context["total_required"] = len(view.required_items)
    if section == "requests":
        context["requests"] = view.requests
    context.update(extra)
    branding = await portal_branding(runtime, user.tenant_id)
    return render_portal(request, template, context, status_code=status_code, branding=branding)


@router.get("/portal")
async def portal_home(request: Request) -> Response:
    user = await member_or_page(request)
    if isinstance(user, Response):
        return user
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        view = await applicants.load_view(session, user, with_checklist=False)
    return see_other(landing_path(view.application, None))


# The five pages a `redirectPath` can name
# (docs/reference/tenant-api.md §5.2): template, nav key, title.
STATE_PAGES = {
    "/portal/dashboard": ("portal/dashboard.html", "dashboard", N_("Overview")),
    "/portal/status": ("portal/status.html", "status", N_("Status")),
    "/portal/requests": ("portal/requests.html", "requests", N_("Requests")),
    "/portal/upload-documents": ("portal/upload_documents.html", "documents", N_("Documents")),
    "/portal/form-parser": ("portal/form.html", "form", N_("Application form")),
}


def _state_page(page: tuple[str, str, str]) -> Callable[[Request], Awaitable[Response]]:
    async def route(request: Request) -> Response:
        user = await member_or_page(request)
        if isinstance(user, Response):
            return user
        return await render_page(request, user, page)

    return route


for _path, _page in STATE_PAGES.items():
    router.add_api_route(_path, _state_page(_page), methods=["GET"])
