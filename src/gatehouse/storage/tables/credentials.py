"""The credentials epoch: the signal every change to API keys or tenants gives
(limits/credentials.py, docs/platform.md "Fast paths").

One row (`id` 1). Migration 0014 puts triggers on `api_keys` and `tenants`, so every
writer gives the signal, whatever it writes through (the ORM, Core, text SQL, the
driver, a SQL console): on SQLite each changed or deleted row adds one to `value`, which every
process reads before it trusts its cache; on PostgreSQL each statement sends
`NOTIFY gatehouse_credentials` to every process's listener and a NOTICE to the writing
connection (the row stays as it is there: a row every credential write locked would
serialize those writes). A migration that rebuilds either table on SQLite (batch mode
copies a table and drops the old one, and its triggers with it) must create the
triggers again (`tests/test_migrations.py` checks they exist at the head).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Integer
from sqlalchemy.orm import Mapped, mapped_column

from gatehouse.storage.base import Base


class CredentialEpoch(Base):
    __tablename__ = "credential_epoch"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    value: Mapped[int] = mapped_column(BigInteger, default=0)
