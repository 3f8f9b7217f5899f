"""HTTP routes of the api area (empty until the area lands)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
