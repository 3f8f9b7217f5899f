"""The rule of the audit chain (docs/audit-and-evidence.md, "How each hash is made").

Pure: no clock, no database. Each sealed entry's `hash` is the hex SHA-256 of the UTF-8 bytes of
the previous entry's `hash` (64 zeros before the first) followed directly by the canonical
JSON of `{seq, at, actor, action, target, tenantId, applicationId, requestId}`: keys sorted,
`,` and `:` without spaces, non-ASCII characters as they are, nulls kept, `at` as the export
writes it (RFC 3339 UTC with milliseconds).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime

from typing_extensions import TypedDict

from gatehouse.timeutil import format_ts

GENESIS = "0" * 64
HASH_LENGTH = 64


class ChainedFields(TypedDict):
    """What one entry's hash covers."""

    seq: int
    at: str
    actor: str
    action: str
    target: str
    tenantId: str | None
    applicationId: str | None
    requestId: str | None


def chained_fields(
    seq: int,
    at: datetime,
    actor: str,
    action: str,
    target: str,
    tenant_id: str | None,
    application_id: str | None,
    request_id: str | None,
) -> ChainedFields:
    return {
        "seq": seq,
        "at": format_ts(at),
        "actor": actor,
        "action": action,
        "target": target,
        "tenantId": tenant_id,
        "applicationId": application_id,
        "requestId": request_id,
    }


def canonical(fields: ChainedFields) -> str:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_hash(prev_hash: str, fields: ChainedFields) -> str:
    """The hash of one entry, linked to the entry sealed before it."""
    return hashlib.sha256((prev_hash + canonical(fields)).encode("utf-8")).hexdigest()


def head_payload(seq: int, hash_: str) -> bytes:
    """The bytes a signed head's MAC covers: its `seq` and `hash`."""
    return f"gatehouse-audit-head\n{seq}\n{hash_}".encode("ascii")


def is_hash(value: object) -> bool:
    return (
        isinstance(value, str)
        and len(value) == HASH_LENGTH
        and all(c in "0123456789abcdef" for c in value)
    )
