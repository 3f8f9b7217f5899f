"""The staff API (`/staff/v1`, CONTRACT §4), assembled from each area's routers."""

from __future__ import annotations

from fastapi import APIRouter

from gatehouse.staff.accounts_routes import router as accounts_router
from gatehouse.staff.cases_routes import router as cases_router
from gatehouse.staff.intakes_routes import router as intakes_router
from gatehouse.verification.staff_routes import router as verification_router
from gatehouse.webhooks.staff_routes import router as webhooks_router

router = APIRouter()
for sub in (accounts_router, intakes_router, cases_router, webhooks_router, verification_router):
    router.include_router(sub)
