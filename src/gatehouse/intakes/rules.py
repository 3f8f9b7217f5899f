"""Pure rules of intakes: which intake a new application gets, and the staff's plain fields
(docs/reference/tenant-api.md §5.1, docs/reference/staff-api.md §5). No I/O."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gatehouse.domain.checklist import ConfigurationError, is_usable_configuration, sort_key
from gatehouse.domain.numbers import INT32_MAX, INT32_MIN, parse_int
from gatehouse.errors import failed_precondition, invalid_argument


def _usable(intake: Any) -> bool:
    return is_usable_configuration(intake.checklist, intake.form_fields)


def choose_among(rows: Sequence[Any], tenant_id: str, label_id: str | None) -> str:
    """The label id a new application gets (docs/reference/tenant-api.md §5.1 rules 3 and
    4), among the rows of `CHOICE_BY_LABEL` (a label named) or `CHOICE_ATTACHED` (none named),
    both in `intakes/queries.py`.

    A named label must be the tenant's and attached (else 400
    invalid-argument) with a valid configuration (else 400
    failed-precondition). Without one, the first usable attached intake in
    configured order; none attached is invalid-argument, only broken ones
    failed-precondition.
    """
    if label_id is not None:
        intake = rows[0] if rows else None
        if intake is None or intake.tenant_id != tenant_id or not intake.attached:
            raise invalid_argument(
                "labelId does not name an attached intake.", "labelId", "unknown intake label"
            )
        if not _usable(intake):
            raise failed_precondition("The intake's configuration is not usable.")
        return str(intake.id)
    candidates = sorted(rows, key=lambda intake: sort_key(intake.order, intake.position))
    for intake in candidates:
        if _usable(intake):
            return str(intake.id)
    if candidates:
        raise failed_precondition("No intake of this tenant has a usable configuration.")
    raise invalid_argument("This tenant has no usable intake.", "labelId", "no usable intake")


def valid_name(name: object) -> str:
    """An intake's name: a nonempty string, trimmed, at most 200 characters."""
    if not isinstance(name, str) or not name.strip():
        raise invalid_argument("name must be a nonempty string.", "name", "required")
    return name.strip()[:200]


def valid_order(order: object) -> int | None:
    """`order`: null, or an integer within the database's INTEGER range (docs/platform.md)."""
    return None if order is None else parse_int(order, "order", INT32_MIN, INT32_MAX)


def config_error(field: str, exc: ConfigurationError) -> Exception:
    """The 400 for a checklist or form-field list that does not hold."""
    return invalid_argument(f"{field} is not valid: {exc}", exc.field or field, str(exc))
