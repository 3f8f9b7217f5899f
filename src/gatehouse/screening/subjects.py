"""Who an application's screening looks at (docs/screening.md, "Who is screened"), and the
intake's `screening` setting that names them (docs/reference/staff-api.md §5). Pure."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from gatehouse.domain.screening import COMPANY_FIELD, SubjectKind
from gatehouse.errors import invalid_argument

PERSON_KEYS = ("name", "birthDate", "nationality")
MAX_PEOPLE = 20


@dataclass(frozen=True, slots=True)
class Subject:
    """A party of an application to screen: the company, or a person of the form."""

    kind: str
    field: str
    name: str
    birth_date: str | None = None
    nationality: str | None = None


def _refuse(message: str, where: str) -> Exception:
    return invalid_argument(message, where, message)


def validate_screening_setting(value: object, field_keys: Collection[str]) -> dict[str, Any]:
    """`{people: [{name, birthDate?, nationality?}]}`, each value a form field key of the
    intake; anything else is 400 naming what is wrong."""
    if value is None:
        return {"people": []}
    if not isinstance(value, dict) or set(value) - {"people"}:
        raise _refuse("screening must be an object with one member, people.", "screening")
    people = value.get("people", [])
    if not isinstance(people, list) or len(people) > MAX_PEOPLE:
        raise _refuse(f"screening.people must be a list of at most {MAX_PEOPLE}.", "screening")
    clean = []
    for n, person in enumerate(people):
        where = f"screening.people[{n}]"
        if not isinstance(person, dict) or "name" not in person or set(person) - set(PERSON_KEYS):
            raise _refuse(f"{where} must be an object with name, birthDate?, nationality?.", where)
        for part, key in person.items():
            if not isinstance(key, str) or key not in field_keys:
                raise _refuse(
                    f"{where}.{part} names {key!r}, which is not a form field key of the intake.",
                    f"{where}.{part}",
                )
        clean.append({part: person[part] for part in PERSON_KEYS if part in person})
    return {"people": clean}


def _text(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def subjects_of(
    company_name: str | None, answers: Mapping[str, Any], setting: Mapping[str, Any] | None
) -> list[Subject]:
    """The company (as a company) and the people the setting names; an empty name is skipped."""
    found = []
    company = _text(company_name)
    if company:
        found.append(Subject(SubjectKind.COMPANY, COMPANY_FIELD, company))
    for person in (setting or {}).get("people", []):
        name = _text(answers.get(person["name"]))
        if not name:
            continue
        found.append(
            Subject(
                SubjectKind.PERSON,
                person["name"],
                name,
                _text(answers.get(person.get("birthDate", ""))),
                _text(answers.get(person.get("nationality", ""))),
            )
        )
    return found


def basis_of(subjects: Sequence[Subject], versions: Sequence[str]) -> str:
    """A digest of what a screening looks at: the subjects and the lists' versions."""
    data = [[s.kind, s.field, s.name, s.birth_date, s.nationality] for s in subjects]
    return hashlib.sha256(orjson.dumps([data, list(versions)])).hexdigest()
