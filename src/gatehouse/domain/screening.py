"""The vocabulary of screening and risk (docs/screening.md): hit states, the screening
status of an application, subject kinds and risk levels."""

from __future__ import annotations

from enum import StrEnum


class HitStatus(StrEnum):
    """A hit is open until staff resolve it as a true match or not."""

    OPEN = "open"
    MATCH = "match"
    NO_MATCH = "no_match"


RESOLUTIONS: tuple[str, ...] = (HitStatus.MATCH, HitStatus.NO_MATCH)


class ScreeningStatus(StrEnum):
    NOT_SCREENED = "not_screened"
    CLEAR = "clear"
    HITS = "hits"


class SubjectKind(StrEnum):
    PERSON = "person"
    COMPANY = "company"


class RiskLevel(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


RISK_LEVELS: tuple[str, ...] = tuple(RiskLevel)

# The field a company subject names (docs/screening.md, "Who is screened").
COMPANY_FIELD = "companyName"
# The longest resolution comment and override reason.
MAX_COMMENT = 4000
