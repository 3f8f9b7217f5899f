"""The applicant portal (`/portal`, CONTRACT §5): JSON routes and pages."""

from __future__ import annotations

from fastapi import APIRouter

from gatehouse.portal.api import router as api_router
from gatehouse.portal.pages import router as pages_router

router = APIRouter()
router.include_router(api_router)
router.include_router(pages_router)
