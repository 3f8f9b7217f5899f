"""The staff API (`/staff/v1`, docs/reference/staff-api.md), assembled from each area's routers."""

from __future__ import annotations

from fastapi import APIRouter

from gatehouse.staff.accounts import router as accounts_router
from gatehouse.staff.branding import router as branding_router
from gatehouse.staff.cases import router as cases_router
from gatehouse.staff.documents import router as documents_router
from gatehouse.staff.identity import router as identity_router
from gatehouse.staff.insights import router as insights_router
from gatehouse.staff.intakes import router as intakes_router
from gatehouse.staff.realignment import router as realignment_router
from gatehouse.staff.verification import router as verification_router
from gatehouse.staff.webhooks import router as webhooks_router

router = APIRouter()
for sub in (
    accounts_router,
    branding_router,
    identity_router,
    intakes_router,
    cases_router,
    realignment_router,
    insights_router,
    documents_router,
    webhooks_router,
    verification_router,
):
    router.include_router(sub)
