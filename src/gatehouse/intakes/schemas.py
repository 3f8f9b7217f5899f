"""Response shapes of intakes (docs/reference/tenant-api.md §5.5, docs/reference/staff-api.md
§5)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict


class IntakeLabel(TypedDict):
    """An attached intake as tenants see it; nothing internal."""

    labelId: str
    name: str
    order: int | None


class IntakeList(TypedDict):
    data: list[IntakeLabel]


class ChecklistEntry(TypedDict):
    """A configured checklist item."""

    key: str
    label: str
    kind: Literal["document", "verification", "form"]
    required: bool
    labels: NotRequired[dict[str, str]]  # the label per language (en, de, ar), when given


class FormField(TypedDict):
    """A configured field of the portal form."""

    key: str
    label: str
    type: Literal["text", "textarea", "email", "date", "number", "tel", "url", "checkbox"]
    required: bool
    labels: NotRequired[dict[str, str]]  # the label per language (en, de, ar), when given


class ScreenedPerson(TypedDict, total=False):
    """Form field keys naming a person to screen (docs/screening.md)."""

    name: str
    birthDate: str
    nationality: str


class ScreeningSetting(TypedDict):
    people: list[ScreenedPerson]


class RiskRule(TypedDict):
    key: str
    label: str
    points: int
    when: dict[str, Any]


class RiskThresholds(TypedDict):
    medium: int
    high: int


class RiskRules(TypedDict):
    rules: list[RiskRule]
    thresholds: RiskThresholds


class StaffIntake(TypedDict):
    """The staff view of an intake."""

    labelId: str
    name: str
    order: int | None
    attached: bool
    checklist: list[ChecklistEntry]
    formFields: list[FormField]
    screening: ScreeningSetting
    riskRules: RiskRules
