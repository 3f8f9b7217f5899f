"""The tenant API v1 (docs/reference/tenant-api.md), assembled from one router per resource.

Webhook routes live in `gatehouse.api.webhooks`.
"""

from __future__ import annotations

from fastapi import APIRouter

from gatehouse.api.access import router as access_router
from gatehouse.api.applications import router as applications_router
from gatehouse.api.console import router as console_router
from gatehouse.api.intakes import router as intakes_router
from gatehouse.api.login_sessions import router as login_sessions_router
from gatehouse.api.members import router as members_router
from gatehouse.api.sandbox import router as sandbox_router

router = APIRouter()
for sub in (
    applications_router,
    login_sessions_router,
    members_router,
    access_router,
    intakes_router,
    sandbox_router,
    console_router,
):
    router.include_router(sub)
