"""HTTP routes of the staff area (empty until the area lands)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
