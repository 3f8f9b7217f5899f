"""Every column that holds a value sealed by the key ring, and re-sealing them.

`gatehouse keys rotate` walks this inventory: each value not yet under the current key is
opened with the ring and sealed again under the current key, in batches, each batch in its
own transaction (a crash leaves every value readable: re-sealed or not). A feature that adds a
sealed column lists it here, so rotation can never miss it (docs/operations.md "Keys and
rotation").
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Column, Table, case, func, literal_column, select, update

from gatehouse.crypto import Crypto, UndecryptableError
from gatehouse.storage.db import Database
from gatehouse.storage.tables.applications import Application, LoginLink, PortalSession
from gatehouse.storage.tables.console import ConsoleLink, ConsoleSession
from gatehouse.storage.tables.core import ApiKey, IdempotencyRecord
from gatehouse.storage.tables.dashboard import DashboardSession
from gatehouse.storage.tables.documents_custody import DocumentCustody
from gatehouse.storage.tables.staff_identity import (
    StaffCredential,
    StaffInvite,
    StaffRecoveryCode,
    StaffSignInFlow,
    StaffToken,
)
from gatehouse.storage.tables.verification import VerificationClient
from gatehouse.storage.tables.webhooks import WebhookSecret

BATCH = 500


@dataclass(frozen=True, slots=True)
class SealedColumn:
    table: Table
    key: Column[object]
    value: Column[object]

    @property
    def name(self) -> str:
        return f"{self.table.name}.{self.value.name}"


def _column(model: type, value: str, key: str = "id") -> SealedColumn:
    table: Table = model.__table__  # type: ignore[attr-defined]
    return SealedColumn(table, table.c[key], table.c[value])


SEALED_COLUMNS: list[SealedColumn] = [
    _column(WebhookSecret, "secret_encrypted"),
    _column(VerificationClient, "callback_passphrase_encrypted", key="uuid"),
    _column(IdempotencyRecord, "response_encrypted"),
    _column(StaffCredential, "totp_secret_encrypted", key="staff_id"),
    _column(StaffSignInFlow, "payload_encrypted"),
    _column(DocumentCustody, "data_key_encrypted", key="document_id"),
    _column(ConsoleSession, "flash_encrypted"),
]


@dataclass(frozen=True, slots=True)
class RekeyCount:
    column: str
    rekeyed: int
    current: int
    # Values no key of the ring opens (their key left the ring before they were moved): kept
    # as they are, and counted, so that rotation reports them instead of stopping.
    unreadable: int = 0


async def rekey_all(db: Database, crypto: Crypto) -> list[RekeyCount]:
    """Seal every value under the current key; how many were moved, per column."""
    return [await _rekey_column(db, crypto, column) for column in SEALED_COLUMNS]


async def _rekey_column(db: Database, crypto: Crypto, column: SealedColumn) -> RekeyCount:
    rekeyed = current = unreadable = 0
    after: object = None
    while True:
        query = select(column.key, column.value).where(column.value.is_not(None))
        if after is not None:
            query = query.where(column.key > after)
        query = query.order_by(column.key).limit(BATCH)
        async with db.write() as session:
            rows = (await session.execute(query)).all()
            for key, value in rows:
                value = str(value)
                if not crypto.needs_rekey(value):
                    current += 1
                    continue
                try:
                    again = crypto.rekey(value)
                except UndecryptableError:
                    unreadable += 1
                    continue
                await session.execute(
                    update(column.table)
                    .where(column.key == key, column.value == value)
                    .values({column.value.name: again})
                )
                rekeyed += 1
        if len(rows) < BATCH:
            return RekeyCount(column.name, rekeyed, current, unreadable)
        after = rows[-1][0]


# Keyed digests: credentials the service only recognises, made under one key of the ring.
# They cannot be made again without the credential, so rotation moves none of them: API keys
# and staff tokens are stored again under the current key when they next verify; the others
# verify only while their key stays in the ring (docs/operations.md, "Keys and rotation").
# `gatehouse keys rotate` counts them by key, so an operator sees what removing a key costs.


@dataclass(frozen=True, slots=True)
class DigestColumn:
    column: Column[object]
    # What precedes the digest in the value (an erased identity is `erased:<digest>`).
    prefix: str = ""

    @property
    def name(self) -> str:
        return f"{self.column.table.name}.{self.column.name}"


def _digests(model: type, column: str, prefix: str = "") -> DigestColumn:
    table: Table = model.__table__  # type: ignore[attr-defined]
    return DigestColumn(table.c[column], prefix)


DIGEST_COLUMNS: list[DigestColumn] = [
    _digests(ApiKey, "secret_hash"),
    _digests(StaffToken, "token_hash"),
    _digests(VerificationClient, "secret_hash"),
    _digests(StaffRecoveryCode, "code_hash"),
    _digests(StaffInvite, "token_hash"),
    _digests(StaffSignInFlow, "token_hash"),
    _digests(DashboardSession, "token_hash"),
    _digests(LoginLink, "token_hash"),
    _digests(PortalSession, "token_hash"),
    _digests(ConsoleLink, "token_hash"),
    _digests(ConsoleSession, "token_hash"),
    _digests(Application, "identity", prefix="erased:"),
]


@dataclass(frozen=True, slots=True)
class DigestCount:
    column: str
    current: int  # under the current key
    previous: int  # under a previous key of the ring: they stop verifying when it leaves
    unlabelled: int  # made before key ids existed, under whichever key was current then
    outside: int  # under a key no longer in the ring: they verify no more


async def count_digests(db: Database, crypto: Crypto) -> list[DigestCount]:
    """How many digests of each column were made under which key (one GROUP BY each)."""
    counts = []
    for digests in DIGEST_COLUMNS:
        start = len(digests.prefix)
        marker = func.substr(digests.column, literal_column(str(start + 8)), literal_column("1"))
        kid = case(
            (
                marker == literal_column("'$'"),
                func.substr(digests.column, literal_column(str(start + 2)), literal_column("6")),
            ),
            else_=literal_column("''"),
        )
        query = select(kid, func.count()).where(digests.column.is_not(None))
        if digests.prefix:
            query = query.where(digests.column.startswith(digests.prefix, autoescape=True))
        async with db.read() as session:
            rows = (await session.execute(query.group_by(literal_column("1")))).all()
        found = {"current": 0, "previous": 0, "unlabelled": 0, "outside": 0}
        for key_id, count in rows:
            if not key_id:
                found["unlabelled"] += count
            elif key_id == crypto.current_kid:
                found["current"] += count
            elif key_id in crypto.key_ids:
                found["previous"] += count
            else:
                found["outside"] += count
        counts.append(DigestCount(digests.name, **found))
    return counts
