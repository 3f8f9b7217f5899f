"""Shared pieces of the response models: tolerant field readers, timestamps,
the application status type, and the base that keeps the raw object
(docs/reference/tenant-api.md §2.1 rules 5-6, §9)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar

__all__ = ["ApplicationStatus", "format_timestamp", "parse_timestamp"]


class ApplicationStatus(str):
    """An application status (docs/reference/tenant-api.md §2.3), kept as sent even when unfamiliar.

    It compares equal to its string. `is_known` says whether this version of
    the client knows the value; `is_approved` is true for `active` only, so an
    unfamiliar value is never taken for approval.
    """

    PENDING: ClassVar[str] = "pending"
    NEEDS_INFO: ClassVar[str] = "needs_info"
    HOLD: ClassVar[str] = "hold"
    PENDING_APPROVAL: ClassVar[str] = "pending_approval"
    ACTIVE: ClassVar[str] = "active"
    REJECTED: ClassVar[str] = "rejected"
    KNOWN: ClassVar[frozenset[str]] = frozenset(
        {"pending", "needs_info", "hold", "pending_approval", "active", "rejected"}
    )

    @property
    def is_known(self) -> bool:
        return str(self) in self.KNOWN

    @property
    def is_approved(self) -> bool:
        return str(self) == self.ACTIVE

    def __repr__(self) -> str:
        return f"ApplicationStatus({str(self)!r})"


def parse_timestamp(value: Any) -> datetime | None:
    """An RFC 3339 timestamp as an aware UTC datetime; None when absent or unreadable."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    return parsed.astimezone(UTC)


def format_timestamp(value: datetime) -> str:
    """`2026-11-22T10:00:00.000Z`: the API's timestamp format (docs/reference/tenant-api.md
    §2.1 rule 5).
    """
    if value.tzinfo is None:
        raise ValueError("timestamps must be timezone-aware")
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def text_of(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


def int_of(data: Mapping[str, Any], key: str) -> int | None:
    value = data.get(key)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def bool_of(data: Mapping[str, Any], key: str) -> bool | None:
    value = data.get(key)
    return value if isinstance(value, bool) else None


def object_of(data: Mapping[str, Any], key: str) -> dict[str, Any] | None:
    value = data.get(key)
    return value if isinstance(value, dict) else None


def list_of_values(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    return value if isinstance(value, list) else []


def status_of(data: Mapping[str, Any], key: str = "status") -> ApplicationStatus | None:
    value = text_of(data, key)
    return ApplicationStatus(value) if value is not None else None


M = TypeVar("M", bound="Model")


@dataclass(frozen=True)
class Model:
    """Base: the whole object stays available in `raw`."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset()

    raw: dict[str, Any] = field(repr=False, compare=False)

    @property
    def extra(self) -> dict[str, Any]:
        """Fields the server sent that this version of the client does not name."""
        return {k: v for k, v in self.raw.items() if k not in self.KNOWN_FIELDS}


def models_of(cls: type[M], items: list[Any]) -> list[M]:
    return [cls.from_json(item) for item in items if isinstance(item, dict)]  # type: ignore[attr-defined]
