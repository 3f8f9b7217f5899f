"""HTTP routes of the verification area (empty until the area lands)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
