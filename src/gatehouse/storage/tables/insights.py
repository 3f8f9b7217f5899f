"""The insights' daily summary (docs/insights.md "Speed"): per tenant, intake and day, the
counts the figures add up, kept by database triggers (migration 0019) in the same transaction
as every write to the applications, their history, their risk and their screening hits.

`label_id` is `''` for an application without an intake (a key column cannot be null).
`day` is the UTC day of the application's creation (`insights_days`,
`insights_decision_days`) or of the history entry (`insights_staff_days`).
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import Date, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from gatehouse.storage.base import Base


class InsightsDay(Base):
    """The applications created on one day in one tenant and intake: how many, and how far
    they got now (the funnel), how many are open, at each risk level, and their hits."""

    __tablename__ = "insights_days"

    tenant_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    label_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    created: Mapped[int] = mapped_column(Integer, default=0)
    signed_in: Mapped[int] = mapped_column(Integer, default=0)
    submitted: Mapped[int] = mapped_column(Integer, default=0)
    approved: Mapped[int] = mapped_column(Integer, default=0)
    rejected: Mapped[int] = mapped_column(Integer, default=0)
    open_count: Mapped[int] = mapped_column(Integer, default=0)
    risk_medium: Mapped[int] = mapped_column(Integer, default=0)
    risk_high: Mapped[int] = mapped_column(Integer, default=0)
    hits: Mapped[int] = mapped_column(Integer, default=0)
    hits_match: Mapped[int] = mapped_column(Integer, default=0)
    hits_no_match: Mapped[int] = mapped_column(Integer, default=0)


class InsightsDecisionDay(Base):
    """The decided applications created on one day in one tenant and intake, by how long the
    decision took (`bucket`: the index of its range in insights/rules.py DECISION_EDGES)."""

    __tablename__ = "insights_decision_days"

    tenant_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    label_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    bucket: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    decided: Mapped[int] = mapped_column(Integer, default=0)


class InsightsStaffDay(Base):
    """One staff member's decisions made on one day on one tenant and intake's
    applications."""

    __tablename__ = "insights_staff_days"

    tenant_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    label_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    staff_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    proposals: Mapped[int] = mapped_column(Integer, default=0)
    countersignatures: Mapped[int] = mapped_column(Integer, default=0)
    rejections: Mapped[int] = mapped_column(Integer, default=0)
