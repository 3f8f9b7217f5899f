"""What /openapi.json says about the `/staff/v1` screening and risk operations
(docs/reference/staff-api.md §17)."""

from __future__ import annotations

from typing import Any

from gatehouse.domain.principals import Role
from gatehouse.domain.screening import RESOLUTIONS, RISK_LEVELS
from gatehouse.risk import Risk
from gatehouse.screening import Hit, Screening, ScreeningRequested, WatchLists
from gatehouse.web.openapi import Op, OperationTable, nullable

ANALYST = Role.ANALYST.value
MLRO = Role.MLRO.value

HIT_EXAMPLE: Hit = {
    "hitId": "hit_5c1e0f7a2d9b",
    "subject": {"kind": "person", "name": "Vladimir Putin", "field": "directorName"},
    "list": "opensanctions",
    "entityId": "Q7747",
    "entityName": "Владимир Владимирович Путин",
    "schema": "Person",
    "topics": ["role.pep", "sanction"],
    "score": 0.91,
    "explanation": [
        "['vladimir'≈'vladimir' symbolMatch: 1.00] ['putin'≈'putin' symbolMatch: 1.00]"
    ],
    "status": "open",
    "comment": None,
    "resolvedBy": None,
    "resolvedAt": None,
    "entity": {
        "names": ["Владимир Владимирович Путин", "Vladimir Putin"],
        "birthDates": ["1952-10-07"],
        "countries": ["ru"],
        "topics": ["role.pep", "sanction"],
    },
}
RISK_EXAMPLE: Risk = {
    "level": "high",
    "score": 25,
    "factors": [{"rule": "offshore", "label": "Registered offshore", "points": 25}],
    "computedLevel": "high",
    "override": None,
}
COMMENT: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 4000}

OPERATIONS: OperationTable = {
    ("GET", "/staff/v1/screening/lists"): Op(
        "listScreeningLists",
        "The watchlists in force",
        {200: WatchLists},
        access=ANALYST,
        answer_example={
            "data": [
                {
                    "name": "opensanctions",
                    "entities": 1,
                    "version": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                    "loadedAt": "2026-11-22T10:00:00.000Z",
                }
            ]
        },
    ),
    ("GET", "/staff/v1/applications/{client_id}/screening"): Op(
        "getScreening",
        "An application's screening: its status and hits, best score first",
        {200: Screening},
        access=ANALYST,
        answer_example={
            "status": "hits",
            "screenedAt": "2026-11-22T10:00:00.000Z",
            "data": [HIT_EXAMPLE],
        },
    ),
    ("POST", "/staff/v1/applications/{client_id}/screening/run"): Op(
        "runScreening",
        "Screen an application now (in the background)",
        {202: ScreeningRequested},
        access=ANALYST,
        errors=(410,),
        body_required=False,
        answer_example={"clientId": "app_8f2k1c9d0a7b", "queued": True},
    ),
    ("POST", "/staff/v1/screening-hits/{hit_id}/resolve"): Op(
        "resolveScreeningHit",
        "Resolve a screening hit as a match or no match",
        {200: Hit},
        access=ANALYST,
        errors=(410,),
        body_fields={
            "resolution": {"type": "string", "enum": list(RESOLUTIONS)},
            "comment": COMMENT,
        },
        description="Changing a resolved hit needs the mlro role (docs/reference/staff-api.md "
        "§17).",
        example={"resolution": "no_match", "comment": "Different birth date and nationality."},
        answer_example={**HIT_EXAMPLE, "status": "no_match"},
    ),
    ("GET", "/staff/v1/applications/{client_id}/risk"): Op(
        "getRisk",
        "An application's risk: level, score, factors and override",
        {200: Risk},
        access=ANALYST,
        answer_example=RISK_EXAMPLE,
    ),
    ("POST", "/staff/v1/applications/{client_id}/risk/override"): Op(
        "overrideRisk",
        "Override an application's risk level (null clears the override)",
        {200: Risk},
        access=MLRO,
        errors=(410,),
        body_fields={
            "level": nullable({"type": "string", "enum": list(RISK_LEVELS)}),
            "reason": COMMENT,
        },
        example={"level": "medium", "reason": "Known customer of the group since 2019."},
        answer_example=RISK_EXAMPLE,
    ),
}
