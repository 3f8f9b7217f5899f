"""The tenant console (`/console`, docs/console.md): self-service webhooks for a tenant's
developers, opened by a link its backend mints with `POST /v1/console-sessions`."""

from __future__ import annotations

from fastapi import APIRouter

from gatehouse.console.catalogue_routes import router as catalogue_router
from gatehouse.console.endpoint_routes import router as endpoint_router
from gatehouse.console.start_routes import router as start_router

router = APIRouter(include_in_schema=False)
router.include_router(start_router)
router.include_router(endpoint_router)
router.include_router(catalogue_router)
