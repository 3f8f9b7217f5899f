"""Sign-in links: POST /v1/login-sessions and POST …/login-sessions.

docs/reference/tenant-api.md §5.2, §5.6.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.api.examples import EMAIL_BODY, LINK_EXAMPLE, WRITE
from gatehouse.api.schemas import LoginSessionBody, ReissueBody
from gatehouse.applications.schemas import LoginSession, SignInLink
from gatehouse.applications.service.provisioning import create_login_session
from gatehouse.members.service import reissue_login_session
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, WriteApplications
from gatehouse.web.openapi import Op
from gatehouse.web.responses import respond

router = APIRouter(tags=["login sessions"])


@router.post("/v1/login-sessions", openapi_extra=body_schema(LoginSessionBody))
@Op(
    "createLoginSession",
    "Provision an application if needed and make a sign-in link for its applicant",
    {201: LoginSession},
    access=WRITE,
    errors=(410,),
    example={**EMAIL_BODY, "redirectPath": "/requests"},
    answer_example={**LINK_EXAMPLE, "status": "pending"},
)
async def post_login_session(
    request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """Provision, then 201 `{loginUrl, clientId, expiresAt, status}`
    (docs/reference/tenant-api.md §5.2)."""
    body = await parse_body(request, LoginSessionBody)
    applicant = body.applicant()
    queue = runtime.identity_queue.hold((principal.tenant_id, applicant.identity))
    async with queue, runtime.db.write() as session:
        ctx = write_context(request, principal)
        view = await create_login_session(
            session, runtime, ctx, principal, applicant, body.labelId, body.redirectPath
        )
        return await respond(request, session, 201, view)


@router.post(
    "/v1/applications/{client_id}/login-sessions",
    openapi_extra=body_schema(ReissueBody, required=False),
)
@Op(
    "createApplicationLoginSession",
    "Make a sign-in link for a member (the owner when no email is given)",
    {201: SignInLink},
    access=WRITE,
    errors=(410,),
    example={"email": "cfo@acme.example"},
    answer_example=LINK_EXAMPLE,
)
async def post_application_login_session(
    client_id: str, request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """A fresh link for a member or the owner: 201 `{loginUrl, clientId, expiresAt}`."""
    body = await parse_body(request, ReissueBody)
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        view = await reissue_login_session(
            session, runtime, ctx, principal, client_id, body.email, body.redirectPath
        )
        return await respond(request, session, 201, view)
