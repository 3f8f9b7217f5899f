"""Intake configuration and checklist evaluation (docs/reference/tenant-api.md §2.9, §5.1, §5.13;
docs/reference/tenant-api.md §5; docs/reference/staff-api.md).

An intake's checklist is a list of `{key, label, kind, required}` with kind
`document`, `verification` or `form`; its form fields a list of
`{key, label, type, required}`. Either may carry `labels`, the label per language
(`{"de": "…", "ar": "…"}`, docs/reference/portal.md, "Translated labels") beside the plain
`label`, which stays the default. An attached intake whose stored
configuration breaks these rules is unusable: provisioning answers
400 failed-precondition for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

CHECKLIST_KINDS = ("document", "verification", "form")
FORM_FIELD_TYPES = ("text", "textarea", "email", "date", "number", "tel", "url", "checkbox")
MAX_KEY = 80
MAX_LABEL = 200
# The languages a translated label may be given in: those the portal speaks
# (docs/reference/portal.md, "Languages").
LABEL_LANGUAGES = ("en", "de", "ar")


class ConfigurationError(ValueError):
    """An intake configuration breaks the rules; the message says which, `field` where."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def _check_labels(labels: object, where: str) -> dict[str, str]:
    """`labels`: an object of language tag to a nonempty label."""
    if not isinstance(labels, Mapping):
        raise ConfigurationError(f"{where} must be an object of language to label", where)
    cleaned: dict[str, str] = {}
    for tag, text in labels.items():
        if tag not in LABEL_LANGUAGES:
            raise ConfigurationError(
                f"{where} names an unknown language {tag!r} (one of {', '.join(LABEL_LANGUAGES)})",
                f"{where}.{tag}",
            )
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_LABEL:
            raise ConfigurationError(
                f"{where}.{tag} must be a nonempty string of at most {MAX_LABEL}", f"{where}.{tag}"
            )
        cleaned[tag] = text
    return cleaned


def label_in(entry: Mapping[str, Any], language: str, labels: object = None) -> str:
    """The entry's label in `language`: its translation when given, else the plain label.
    `labels` stands in for the entry's own when given (an evaluated checklist item has none)."""
    given = entry.get("labels") if labels is None else labels
    if isinstance(given, Mapping):
        text = given.get(language)
        if isinstance(text, str) and text.strip():
            return text
    return str(entry.get("label") or "")


def _check_entry(
    entry: object, where: str, kind_field: str, kinds: Sequence[str]
) -> tuple[str, Mapping[Any, Any]]:
    """The entry's key and the entry itself, once it is a well-formed object."""
    if not isinstance(entry, Mapping):
        raise ConfigurationError(f"{where} must be an object")
    key = entry.get("key")
    if not isinstance(key, str) or not key.strip() or len(key) > MAX_KEY:
        raise ConfigurationError(f"{where}.key must be a nonempty string of at most {MAX_KEY}")
    label = entry.get("label")
    if not isinstance(label, str) or not label.strip() or len(label) > MAX_LABEL:
        raise ConfigurationError(
            f"{where}.label must be a nonempty string of at most {MAX_LABEL}", f"{where}.label"
        )
    if entry.get(kind_field) not in kinds:
        raise ConfigurationError(f"{where}.{kind_field} must be one of {', '.join(kinds)}")
    if not isinstance(entry.get("required", True), bool):
        raise ConfigurationError(f"{where}.required must be a boolean")
    return key, entry


def _check_list(
    entries: object, name: str, kind_field: str, kinds: Sequence[str]
) -> list[dict[str, Any]]:
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise ConfigurationError(f"{name} must be a list")
    keys: set[str] = set()
    cleaned: list[dict[str, Any]] = []
    for index, item in enumerate(entries):
        key, entry = _check_entry(item, f"{name}[{index}]", kind_field, kinds)
        if key in keys:
            raise ConfigurationError(f"{name}[{index}].key repeats {key!r}")
        keys.add(key)
        clean: dict[str, Any] = {
            "key": key,
            "label": entry["label"],
            kind_field: entry[kind_field],
            "required": entry.get("required", True),
        }
        if entry.get("labels") is not None:
            clean["labels"] = _check_labels(entry["labels"], f"{name}[{index}].labels")
        cleaned.append(clean)
    return cleaned


def validate_checklist(entries: object) -> list[dict[str, Any]]:
    """The checklist in canonical form; raises ConfigurationError."""
    return _check_list(entries, "checklist", "kind", CHECKLIST_KINDS)


def validate_form_fields(entries: object) -> list[dict[str, Any]]:
    """The portal form fields in canonical form; raises ConfigurationError."""
    return _check_list(entries, "formFields", "type", FORM_FIELD_TYPES)


def is_usable_configuration(checklist: object, form_fields: object) -> bool:
    """Whether an attached intake can take new applications (docs/reference/tenant-api.md
    §5.1 rule 4).
    """
    try:
        validate_checklist(checklist)
        validate_form_fields(form_fields)
    except ConfigurationError:
        return False
    return True


def sort_key(order: int | None, position: int) -> tuple[int, int]:
    """Intake order: by `order` with null as zero, ties by creation
    (docs/reference/tenant-api.md §5.5)."""
    return (order if isinstance(order, int) else 0, position)


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the application has that can satisfy checklist items."""

    documents: Mapping[str, datetime]  # document type -> first upload time
    submitted_at: datetime | None
    verified_at: datetime | None


def evaluate(checklist: Sequence[Mapping[str, Any]], evidence: Evidence) -> list[dict[str, Any]]:
    """Each item with `satisfied` and `satisfiedAt` (docs/reference/tenant-api.md §5 checklist).

    `document`: an uploaded document whose type equals the key; `form`: the
    application was submitted; `verification`: a linked verification
    customer is Accepted (docs/reference/verification.md).
    """
    evaluated: list[dict[str, Any]] = []
    for item in checklist:
        kind = item.get("kind")
        satisfied_at: datetime | None
        if kind == "document":
            satisfied_at = evidence.documents.get(str(item.get("key")))
        elif kind == "form":
            satisfied_at = evidence.submitted_at
        elif kind == "verification":
            satisfied_at = evidence.verified_at
        else:
            satisfied_at = None
        evaluated.append(
            {
                "key": item.get("key"),
                "label": item.get("label"),
                "kind": kind,
                "required": bool(item.get("required", True)),
                "satisfied": satisfied_at is not None,
                "satisfiedAt": satisfied_at,
            }
        )
    return evaluated
