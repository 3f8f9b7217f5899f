"""The applicant portal (`/portal`, docs/reference/portal.md): JSON routes, pages, forms,
the language picker, and the tenant's theme and logo."""

from __future__ import annotations

from fastapi import APIRouter

from gatehouse.portal.api import router as api_router
from gatehouse.portal.branding import router as branding_router
from gatehouse.portal.forms import router as forms_router
from gatehouse.portal.locale import router as locale_router
from gatehouse.portal.pages import router as pages_router

router = APIRouter()
router.include_router(api_router)
router.include_router(pages_router)
router.include_router(forms_router)
router.include_router(locale_router)
router.include_router(branding_router)
