"""The staff dashboard (`/dashboard`, docs/portal-and-dashboard.md) and the shared static files."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import FileResponse, Response

from gatehouse.dashboard.account_routes import router as account_router
from gatehouse.dashboard.auth_routes import router as auth_router
from gatehouse.dashboard.case_actions import router as case_actions_router
from gatehouse.dashboard.case_routes import router as case_router
from gatehouse.dashboard.document_routes import router as document_router
from gatehouse.dashboard.insights_routes import router as insights_router
from gatehouse.dashboard.invite_routes import router as invite_router
from gatehouse.dashboard.queue_routes import router as queue_router
from gatehouse.dashboard.realignment_routes import router as realignment_router
from gatehouse.dashboard.records_routes import router as records_router
from gatehouse.dashboard.screening_routes import router as screening_router
from gatehouse.dashboard.sign_in_routes import router as sign_in_router
from gatehouse.dashboard.staff_routes import router as staff_router
from gatehouse.dashboard.tenants_routes import router as tenants_router
from gatehouse.dashboard.verification_routes import router as verification_router
from gatehouse.dashboard.webhooks_routes import router as webhooks_router
from gatehouse.errors import not_found
from gatehouse.web.rendering import static_file_path

router = APIRouter(include_in_schema=False)
router.include_router(sign_in_router)
router.include_router(invite_router)
router.include_router(auth_router)
router.include_router(account_router)
router.include_router(staff_router)
router.include_router(queue_router)
router.include_router(case_router)
router.include_router(case_actions_router)
router.include_router(realignment_router)
router.include_router(document_router)
router.include_router(tenants_router)
router.include_router(webhooks_router)
router.include_router(verification_router)
router.include_router(records_router)
router.include_router(screening_router)
router.include_router(insights_router)


@router.get("/static/{name:path}")
async def static_file(name: str) -> Response:
    """The stylesheet and script of the pages (no build step)."""
    path = static_file_path(name)
    if path is None:
        raise not_found("No such file.")
    return FileResponse(path, headers={"Cache-Control": "public, max-age=3600"})
