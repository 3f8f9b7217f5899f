"""An intake's risk rules and the computed level (docs/screening.md, "Risk"). Pure: the
caller (risk/service.py) gathers the facts, these functions judge them."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gatehouse.domain.screening import RiskLevel
from gatehouse.errors import invalid_argument

DEFAULT_THRESHOLDS = {"medium": 10, "high": 20}
MAX_RULES = 100
MAX_POINTS = 1000
MAX_TEXT = 200
MAX_VALUES = 100
SCREENING_CONDITIONS = ("open", "match")


@dataclass(frozen=True, slots=True)
class Facts:
    """What the rules look at: the form's answers, the screening's open and matched hits,
    and each checklist item's state."""

    answers: Mapping[str, Any]
    open_hits: int = 0
    matched_hits: int = 0
    checklist: Mapping[str, bool] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Assessment:
    score: int
    factors: list[dict[str, Any]]
    level: str


def default_rules() -> dict[str, Any]:
    return {"rules": [], "thresholds": dict(DEFAULT_THRESHOLDS)}


def _refuse(message: str, where: str) -> Exception:
    return invalid_argument(message, where, message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: object, where: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise _refuse(f"{where}: {what} must be 1 to {MAX_TEXT} characters.", where)
    return value.strip()


def _when(value: object, where: str, fields: Collection[str], items: Collection[str]) -> Any:
    if not isinstance(value, dict):
        raise _refuse(f"{where}: when must be an object.", where)
    shape = set(value)
    if "field" in value:
        if value["field"] not in fields:
            raise _refuse(
                f"{where}: field {value['field']!r} is not a form field key of the intake.", where
            )
        if shape in ({"field", "in"}, {"field", "notIn"}):
            values = value.get("in", value.get("notIn"))
            if (
                not isinstance(values, list)
                or len(values) > MAX_VALUES
                or not all(isinstance(v, str) for v in values)
            ):
                raise _refuse(f"{where}: in and notIn take a list of strings.", where)
            return dict(value)
        if shape == {"field", "present"} and isinstance(value["present"], bool):
            return dict(value)
    elif shape == {"screening"} and value["screening"] in SCREENING_CONDITIONS:
        return dict(value)
    elif shape == {"checklist", "satisfied"} and value["satisfied"] is False:
        if value["checklist"] not in items:
            raise _refuse(
                f"{where}: checklist {value['checklist']!r} is not a checklist key of the intake.",
                where,
            )
        return dict(value)
    raise _refuse(f"{where}: when is not one of the documented conditions.", where)


def _rule(value: object, n: int, fields: Collection[str], items: Collection[str]) -> Any:
    where = f"riskRules.rules[{n}]"
    if not isinstance(value, dict) or set(value) != {"key", "label", "points", "when"}:
        raise _refuse(f"{where} must be an object of key, label, points and when.", where)
    key = _text(value["key"], where, "key")
    where = f"riskRules.rules[{n}] ({key})"
    points = value["points"]
    if not _is_int(points) or not -MAX_POINTS <= points <= MAX_POINTS:
        raise _refuse(f"{where}: points must be an integer from -1000 to 1000.", where)
    return {
        "key": key,
        "label": _text(value["label"], where, "label"),
        "points": points,
        "when": _when(value["when"], where, fields, items),
    }


def validate_rules(
    value: object, fields: Collection[str], items: Collection[str]
) -> dict[str, Any]:
    """`{rules, thresholds}` checked against the intake's form field and checklist keys."""
    if value is None:
        return default_rules()
    if not isinstance(value, dict) or set(value) - {"rules", "thresholds"}:
        raise _refuse("riskRules must be an object of rules and thresholds.", "riskRules")
    rules = value.get("rules", [])
    if not isinstance(rules, list) or len(rules) > MAX_RULES:
        raise _refuse(f"riskRules.rules must be a list of at most {MAX_RULES}.", "riskRules.rules")
    clean = [_rule(rule, n, fields, items) for n, rule in enumerate(rules)]
    keys = [rule["key"] for rule in clean]
    if len(set(keys)) != len(keys):
        raise _refuse("riskRules.rules: each rule needs its own key.", "riskRules.rules")
    thresholds = value.get("thresholds", DEFAULT_THRESHOLDS)
    if (
        not isinstance(thresholds, dict)
        or set(thresholds) != {"medium", "high"}
        or not all(_is_int(v) and abs(v) <= 1_000_000 for v in thresholds.values())
        or thresholds["medium"] > thresholds["high"]
    ):
        raise _refuse(
            "riskRules.thresholds must be {medium, high}, integers, medium at most high.",
            "riskRules.thresholds",
        )
    return {"rules": clean, "thresholds": dict(thresholds)}


def _answer(answers: Mapping[str, Any], key: str) -> str:
    value = answers.get(key)
    if value is None or value is False:
        return ""
    return str(value).strip().casefold()


def holds(when: Mapping[str, Any], facts: Facts) -> bool:
    """Whether a rule's condition holds for the facts."""
    if "field" in when:
        answer = _answer(facts.answers, when["field"])
        if "present" in when:
            return bool(answer) is bool(when["present"])
        listed = {str(v).strip().casefold() for v in when.get("in", when.get("notIn", []))}
        return (answer in listed) == ("in" in when)
    if "screening" in when:
        return (facts.open_hits if when["screening"] == "open" else facts.matched_hits) > 0
    if "checklist" in when:
        return not facts.checklist.get(str(when["checklist"]), False)
    return False


def assess(rules: Mapping[str, Any], facts: Facts) -> Assessment:
    """The score (the points of the rules that hold), those rules, and the level; a hit
    resolved as a match makes the level high whatever the score."""
    factors = [
        {"rule": rule["key"], "label": rule["label"], "points": rule["points"]}
        for rule in rules.get("rules", [])
        if holds(rule["when"], facts)
    ]
    score = sum(factor["points"] for factor in factors)
    thresholds = rules.get("thresholds", DEFAULT_THRESHOLDS)
    if facts.matched_hits or score >= thresholds["high"]:
        level = RiskLevel.HIGH
    elif score >= thresholds["medium"]:
        level = RiskLevel.MEDIUM
    else:
        level = RiskLevel.LOW
    return Assessment(score, factors, level)


def checklist_states(items: Sequence[Mapping[str, Any]]) -> dict[str, bool]:
    return {str(item["key"]): bool(item["satisfied"]) for item in items}
