"""HTTP routes of the webhooks area (empty until the area lands)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
