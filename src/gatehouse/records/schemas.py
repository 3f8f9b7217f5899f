"""Shapes of the records area and the view builders that fill them
(docs/reference/staff-api.md §16.1 to §16.3)."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from gatehouse.crypto import Crypto
from gatehouse.records.chain import ChainedFields, chained_fields, head_payload
from gatehouse.records.queries import SealedRow
from gatehouse.storage.tables.records import AuditChain
from gatehouse.timeutil import format_ts


class AuditHead(TypedDict):
    """The chain's last sealed entry, signed: `signature` is a MAC of `seq` and `hash`."""

    seq: int
    hash: str
    at: str | None
    signature: str


class ExportedEntry(ChainedFields):
    """One line of the NDJSON export: the chained fields, `prevHash` and `hash`."""

    prevHash: str
    hash: str


class SealedEntry(ChainedFields):
    """A sealed entry as the evidence pack shows it."""

    hash: str


class ChainIntact(TypedDict):
    entries: int
    head: dict[str, Any]


class ChainBroken(TypedDict):
    brokenAt: int | None
    reason: str


def fields_of(row: SealedRow, seq: int | None = None) -> ChainedFields:
    """The fields a sealed row's hash covers (with another seq, if given)."""
    return chained_fields(
        row.seq if seq is None else seq,
        row.at,
        row.actor,
        row.action,
        row.target,
        row.tenant_id,
        row.application_id,
        row.request_id,
    )


def signed_head(crypto: Crypto, head: AuditChain) -> AuditHead:
    return {
        "seq": head.seq,
        "hash": head.hash,
        "at": format_ts(head.sealed_at),
        "signature": crypto.sign_record(head_payload(head.seq, head.hash)),
    }


def exported(row: SealedRow, prev_hash: str) -> ExportedEntry:
    return ExportedEntry(**fields_of(row), prevHash=prev_hash, hash=row.hash)


def sealed_entry(row: SealedRow) -> SealedEntry:
    return SealedEntry(**fields_of(row), hash=row.hash)
