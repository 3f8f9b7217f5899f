"""HTTP routes of the dashboard area (empty until the area lands)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
