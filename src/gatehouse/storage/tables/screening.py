"""Watchlists, their blocking index, screening jobs and hits, intake screening settings
and the risk of each application (docs/screening.md).

A list's entities and index keys belong to one load (`generation`); the list row names the
generation in force, so a new load is written beside the old one and switched in one
transaction, and the old generation is deleted afterwards.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from gatehouse.storage.base import Base, UTCDateTime


class ScreeningList(Base):
    __tablename__ = "screening_lists"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    generation: Mapped[int] = mapped_column(Integer)
    version: Mapped[str] = mapped_column(String(64))
    entities: Mapped[int] = mapped_column(Integer)
    loaded_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ScreeningGeneration(Base):
    """One load of a list; its id numbers the entities and keys written by it."""

    __tablename__ = "screening_generations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    list_name: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ScreeningEntity(Base):
    """A listed entity of the screened schemata, as loaded: `data` holds its FollowTheMoney
    object (id, schema, properties) and `digest` the SHA-256 of it."""

    __tablename__ = "screening_entities"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    generation: Mapped[int] = mapped_column(Integer, index=True)
    entity_id: Mapped[str] = mapped_column(String(200))
    schema: Mapped[str] = mapped_column(String(40))
    caption: Mapped[str] = mapped_column(Text)
    digest: Mapped[str] = mapped_column(String(64))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)


class ScreeningKey(Base):
    """The blocking index: one row per (generation, key, entity); `key` is a 63-bit hash of
    a name token or a name symbol."""

    __tablename__ = "screening_keys"

    generation: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    entity: Mapped[int] = mapped_column(BigInteger, primary_key=True)


class ScreeningJob(Base):
    """A pending screening of one application (at most one row each). `seq` grows with each
    request, so a request made while the job runs makes it run again; `force` screens even
    when the subjects did not change."""

    __tablename__ = "screening_jobs"

    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"), primary_key=True)
    reason: Mapped[str] = mapped_column(String(40))
    force: Mapped[bool] = mapped_column(Boolean, default=False)
    seq: Mapped[int] = mapped_column(Integer, default=1)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    lease_token: Mapped[str | None] = mapped_column(String(40))
    attempts: Mapped[int] = mapped_column(Integer, default=0)


class ScreeningState(Base):
    """What the last screening of an application looked at: its subjects and the lists'
    versions (`basis`), and when."""

    __tablename__ = "screening_states"

    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"), primary_key=True)
    basis: Mapped[str] = mapped_column(String(64))
    screened_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ScreeningHit(Base):
    """A listed entity found for a subject of an application. `current` is false once a
    later run no longer finds it (hidden, its resolution kept should it come back)."""

    __tablename__ = "screening_hits"
    __table_args__ = (
        UniqueConstraint("application_id", "subject_field", "list_name", "entity_id"),
        Index("ix_screening_hits_open", "application_id", "current", "status"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"))
    subject_kind: Mapped[str] = mapped_column(String(20))
    subject_field: Mapped[str] = mapped_column(String(100))
    subject_name: Mapped[str] = mapped_column(Text)
    list_name: Mapped[str] = mapped_column(String(100))
    entity_id: Mapped[str] = mapped_column(String(200))
    entity_digest: Mapped[str] = mapped_column(String(64))
    entity: Mapped[dict[str, Any]] = mapped_column(JSON)
    score: Mapped[float] = mapped_column(Float)
    explanation: Mapped[list[str]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(20))
    current: Mapped[bool] = mapped_column(Boolean, default=True)
    comment: Mapped[str | None] = mapped_column(Text)
    resolved_by: Mapped[str | None] = mapped_column(String(40))
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class IntakeScreening(Base):
    """An intake's screening mapping and risk rules (docs/reference/staff-api.md §5)."""

    __tablename__ = "intake_screening"

    intake_id: Mapped[str] = mapped_column(ForeignKey("intakes.id"), primary_key=True)
    screening: Mapped[dict[str, Any]] = mapped_column(JSON)
    risk_rules: Mapped[dict[str, Any]] = mapped_column(JSON)


class ApplicationRisk(Base):
    """The computed risk of an application and a staff override of it."""

    __tablename__ = "application_risk"

    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"), primary_key=True)
    score: Mapped[int] = mapped_column(Integer, default=0)
    computed_level: Mapped[str] = mapped_column(String(10), index=True)
    level: Mapped[str] = mapped_column(String(10), index=True)
    factors: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    computed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    override_level: Mapped[str | None] = mapped_column(String(10))
    override_reason: Mapped[str | None] = mapped_column(Text)
    override_by: Mapped[str | None] = mapped_column(String(40))
    override_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
