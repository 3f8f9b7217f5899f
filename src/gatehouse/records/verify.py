"""Walking the audit chain (docs/audit-and-evidence.md, "Verifying the chain").

`verify_chain` recomputes every sealed entry's hash from the entry before it, in `seq`
order, up to the head it read first (entries sealed meanwhile wait for the next run). It
answers the first entry that is missing (a gap in `seq`, or the chain ending before its
head), moved (its hash is right for another `seq`: entries removed and renumbered, or
reordered) or altered (its fields no longer give its hash). `verify_head` does the same up
to a signed head kept elsewhere, after checking its signature.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gatehouse.crypto import Crypto
from gatehouse.records import queries
from gatehouse.records.chain import GENESIS, entry_hash, head_payload, is_hash
from gatehouse.records.queries import SealedRow
from gatehouse.records.schemas import ChainBroken, ChainIntact, fields_of
from gatehouse.storage.db import Database

WALK_PAGE = 2000
# How far from its place a moved entry is looked for when its hash does not match.
MOVE_WINDOW = 50


@dataclass(frozen=True, slots=True)
class Verdict:
    intact: bool
    body: ChainIntact | ChainBroken


def _broken(seq: int | None, reason: str) -> Verdict:
    return Verdict(False, {"brokenAt": seq, "reason": reason})


async def verify_chain(db: Database, *, upto: int | None = None) -> Verdict:
    """The whole chain up to its head (or up to `upto`, which must be sealed)."""
    async with db.read() as session:
        head = await queries.read_head(session)
    head_seq, head_hash = (head.seq, head.hash) if head is not None else (0, GENESIS)
    if upto is not None and upto > head_seq:
        return _broken(upto, f"missing: no entry is sealed as seq {upto} (the head is {head_seq})")
    end = head_seq if upto is None else upto
    prev, expected = GENESIS, 1
    while expected <= end:
        async with db.read() as session:
            rows = await queries.sealed_after(session, expected - 1, end, WALK_PAGE)
        if not rows:
            break
        for row in rows:
            if row.seq != expected:
                return _broken(expected, f"missing: no entry is sealed as seq {expected}")
            if row.hash != entry_hash(prev, fields_of(row)):
                return _broken(expected, await _explain(db, row))
            prev, expected = row.hash, expected + 1
    if expected <= end:
        return _broken(expected, f"missing: the entries end at seq {expected - 1}, not {end}")
    if upto is None and prev != head_hash:
        return _broken(end, f"altered: the chain head does not hold the hash of seq {end}")
    return Verdict(True, {"entries": end, "head": {"seq": end, "hash": prev}})


async def _explain(db: Database, row: SealedRow) -> str:
    """Why the entry at `row`'s seq fails: moved from another seq, or altered."""
    seq = row.seq
    low, high = max(1, seq - MOVE_WINDOW), seq + MOVE_WINDOW
    async with db.read() as session:
        near = await queries.sealed_between(session, low, high)
    previous = {GENESIS, *(other.hash for other in near)}
    for sealed_as in range(low, high + 1):
        if sealed_as == seq:
            continue
        fields = fields_of(row, sealed_as)
        if any(entry_hash(prev, fields) == row.hash for prev in previous):
            return f"moved: the entry at seq {seq} was sealed as seq {sealed_as}"
    return f"altered: the entry at seq {seq} does not match its hash"


def parse_head(text: str) -> tuple[int, str, str]:
    """(seq, hash, signature) of a head given as JSON; ValueError says what is wrong."""
    try:
        head = json.loads(text)
    except ValueError:
        raise ValueError("the head is not JSON") from None
    if not isinstance(head, dict):
        raise ValueError("the head is not a JSON object")
    seq, hash_, signature = head.get("seq"), head.get("hash"), head.get("signature")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        raise ValueError("the head's seq is not a whole number")
    if not is_hash(hash_):
        raise ValueError("the head's hash is not 64 lowercase hex digits")
    if not isinstance(signature, str):
        raise ValueError("the head has no signature")
    return seq, str(hash_), signature


async def verify_head(db: Database, crypto: Crypto, text: str) -> Verdict:
    """Intact only when the head's signature is good and the chain holds that entry, with
    that hash, and is whole up to it."""
    try:
        seq, hash_, signature = parse_head(text)
    except ValueError as exc:
        return _broken(None, str(exc))
    if not crypto.verify_record(head_payload(seq, hash_), signature):
        return _broken(seq, "forged: the head's signature is not valid under the key ring")
    verdict = await verify_chain(db, upto=seq)
    if not verdict.intact:
        return verdict
    body: Any = verdict.body
    if body["head"]["hash"] != hash_:
        return _broken(seq, f"altered: the entry at seq {seq} is not the one the head names")
    return verdict
