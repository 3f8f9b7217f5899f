"""Response shapes of risk (docs/reference/staff-api.md §17)."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

Level = Literal["low", "medium", "high"]


class RiskFactor(TypedDict):
    rule: str
    label: str
    points: int


class RiskOverride(TypedDict):
    level: Level
    reason: str
    by: str | None
    at: str


class Risk(TypedDict):
    level: Level
    score: int
    factors: list[RiskFactor]
    computedLevel: Level
    override: RiskOverride | None
