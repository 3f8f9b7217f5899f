"""Response shapes of intakes and their view builders (docs/reference/tenant-api.md §5.5,
docs/reference/staff-api.md §5)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, cast

from typing_extensions import TypedDict

from gatehouse.domain.risk import default_rules
from gatehouse.storage.tables.applications import Intake


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


def intake_label_view(intake: Intake) -> IntakeLabel:
    """Intake label list element (docs/reference/tenant-api.md §2.9); nothing internal."""
    return {"labelId": intake.id, "name": intake.name, "order": intake.order}


def staff_intake_view(
    intake: Intake,
    screening: dict[str, Any] | None = None,
    risk_rules: dict[str, Any] | None = None,
) -> StaffIntake:
    """Staff view (docs/reference/staff-api.md §5.1):
    `{labelId, name, order, attached, checklist, formFields, screening, riskRules}`."""
    return {
        "labelId": intake.id,
        "name": intake.name,
        "order": intake.order,
        "attached": intake.attached,
        "checklist": cast(list[ChecklistEntry], list(intake.checklist or [])),
        "formFields": cast(list[FormField], list(intake.form_fields or [])),
        "screening": cast(ScreeningSetting, screening or {"people": []}),
        "riskRules": cast(RiskRules, risk_rules or default_rules()),
    }
