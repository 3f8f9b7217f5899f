"""Records a regulator can trust (docs/audit-and-evidence.md): the head of the audit chain and
legal holds.

`audit_chain` has one row (id 1): the last sealed entry's `seq` and `hash`. The sealer locks
it for the whole of a sealing transaction, so one process at a time extends the chain, and
`gatehouse audit verify` reads it to notice entries cut from the end.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from gatehouse.storage.base import Base, UTCDateTime


class AuditChain(Base):
    """The chain's head: `seq` 0 and 64 zeros before the first entry is sealed."""

    __tablename__ = "audit_chain"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    seq: Mapped[int] = mapped_column(BigInteger)
    hash: Mapped[str] = mapped_column(String(64))
    sealed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class LegalHold(Base):
    """An application on legal hold: never erased (by staff or by retention) while held."""

    __tablename__ = "legal_holds"

    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"), primary_key=True)
    reason: Mapped[str] = mapped_column(Text)
    placed_by: Mapped[str] = mapped_column(String(80))
    placed_at: Mapped[datetime] = mapped_column(UTCDateTime)
