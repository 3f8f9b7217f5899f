"""Routes of staff/cases_routes (empty until its area lands)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
