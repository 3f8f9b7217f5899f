"""Response shapes of screening (docs/reference/staff-api.md §17) and their builders."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from typing_extensions import TypedDict

from gatehouse.storage.tables.screening import ScreeningHit, ScreeningList
from gatehouse.timeutil import format_ts

NAME_PROPERTIES = ("name", "alias", "previousName", "weakAlias")
COUNTRY_PROPERTIES = ("nationality", "citizenship", "country", "jurisdiction")
MAX_SHOWN = 20


class WatchList(TypedDict):
    name: str
    entities: int
    version: str
    loadedAt: str


class WatchLists(TypedDict):
    data: list[WatchList]


class HitSubject(TypedDict):
    kind: Literal["person", "company"]
    name: str
    field: str


class ListedEntity(TypedDict):
    """What the list says of the entity: its names, birth dates, countries and topics."""

    names: list[str]
    birthDates: list[str]
    countries: list[str]
    topics: list[str]


class Hit(TypedDict):
    hitId: str
    subject: HitSubject
    list: str
    entityId: str
    entityName: str
    schema: str
    topics: list[str]
    score: float
    explanation: list[str]
    status: Literal["open", "match", "no_match"]
    comment: str | None
    resolvedBy: str | None
    resolvedAt: str | None
    entity: ListedEntity


class Screening(TypedDict):
    status: Literal["not_screened", "clear", "hits"]
    screenedAt: str | None
    data: list[Hit]


class ScreeningRequested(TypedDict):
    clientId: str
    queued: bool


class ScreeningSummary(TypedDict):
    """What other features (the evidence pack, insights) read of an application."""

    status: str
    screenedAt: str | None
    open: int
    match: int
    noMatch: int


def _values(properties: Mapping[str, Any], names: tuple[str, ...]) -> list[str]:
    seen: list[str] = []
    for prop in names:
        for value in properties.get(prop, []):
            if isinstance(value, str) and value not in seen:
                seen.append(value)
    return seen[:MAX_SHOWN]


def entity_snapshot(schema: str, caption: str, data: Mapping[str, Any]) -> dict[str, Any]:
    properties = data.get("properties", {})
    return {
        "schema": schema,
        "caption": caption,
        "names": _values(properties, NAME_PROPERTIES),
        "birthDates": _values(properties, ("birthDate",)),
        "countries": _values(properties, COUNTRY_PROPERTIES),
        "topics": _values(properties, ("topics",)),
    }


def list_view(row: ScreeningList) -> WatchList:
    return {
        "name": row.name,
        "entities": row.entities,
        "version": row.version,
        "loadedAt": format_ts(row.loaded_at) or "",
    }


def hit_view(hit: ScreeningHit, emails: Mapping[str, str]) -> Hit:
    entity = hit.entity or {}
    return {
        "hitId": hit.id,
        "subject": {
            "kind": hit.subject_kind,  # type: ignore[typeddict-item]
            "name": hit.subject_name,
            "field": hit.subject_field,
        },
        "list": hit.list_name,
        "entityId": hit.entity_id,
        "entityName": str(entity.get("caption", hit.entity_id)),
        "schema": str(entity.get("schema", "")),
        "topics": list(entity.get("topics", [])),
        "score": hit.score,
        "explanation": list(hit.explanation or []),
        "status": hit.status,  # type: ignore[typeddict-item]
        "comment": hit.comment,
        "resolvedBy": emails.get(hit.resolved_by) if hit.resolved_by else None,
        "resolvedAt": format_ts(hit.resolved_at),
        "entity": {
            "names": list(entity.get("names", [])),
            "birthDates": list(entity.get("birthDates", [])),
            "countries": list(entity.get("countries", [])),
            "topics": list(entity.get("topics", [])),
        },
    }


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What loading a watchlist file did (the CLI prints it)."""

    list: str
    entities: int
    version: str
    changed: bool


class BadLine(ValueError):
    """A line that is not an entity object: the whole load is refused."""

    def __init__(self, number: int, reason: str) -> None:
        super().__init__(f"line {number}: {reason}; nothing was loaded")
        self.number = number
