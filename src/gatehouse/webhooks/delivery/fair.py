"""Fair shares of one worker's slots (docs/webhooks.md, "Fairness").

A worker holds at most `Shares.slots` leased deliveries. No endpoint may have more than
`per_endpoint` attempts under way at once and no tenant more than `per_tenant`; a
delivery claimed beyond that waits in this worker (leased) until its endpoint and its
tenant have room. The claim statement does its part: it skips the deliveries of
endpoints and tenants that already hold their share, takes at most a share of each in
one claim, and orders the claimed rows tenant by tenant (every tenant's oldest due
delivery first, then every tenant's second, …), so a tenant with a large backlog does
not fill a claim before another tenant's first delivery.

Holding is bounded too: an endpoint (tenant) is left out of claims while it holds two
shares (one running, one waiting to start the moment a running attempt ends), and one
claim adds at most a share, so a tenant holds fewer than three times `per_tenant` slots.
With `per_tenant` at a fifth of the slots, two fifths are always left for the other
tenants, whatever one tenant's receivers do; and a waiting delivery starts within two
attempts' time (20 s), inside its 60 s lease.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy import (
    ColumnElement,
    Select,
    Update,
    all_,
    and_,
    bindparam,
    func,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.types import String

from gatehouse.domain.webhooks import DeliveryStatus
from gatehouse.storage.tables.webhooks import Delivery

__all__ = ["Shares", "Slots", "claim_parameters", "claim_picked", "fair_pick", "next_due_query"]

# Candidates looked at per claimed row (the oldest due ones, before ranking).
_WINDOW = 4
# An endpoint (tenant) is left out of claims once it holds this many shares: one running,
# one waiting to start the moment a running attempt ends (so the endpoint's share stays
# busy while the next claim is made).
HELD_SHARES = 2


class Held(Protocol):
    """A claimed delivery, as far as shares go."""

    @property
    def endpoint_id(self) -> str: ...

    @property
    def tenant_id(self) -> str: ...


Claim = TypeVar("Claim", bound=Held)


@dataclass(frozen=True)
class Shares:
    """The worker's slots and the share of them one endpoint and one tenant may use."""

    slots: int = 256
    per_endpoint: int = 32
    per_tenant: int = 51

    @classmethod
    def of(cls, slots: int, per_endpoint: int | None = None) -> Shares:
        """`slots` in all; an endpoint gets `per_endpoint` (default: an eighth, at least 1),
        a tenant a fifth (at least the endpoint's share)."""
        endpoint = per_endpoint or max(1, slots // 8)
        return cls(slots=slots, per_endpoint=endpoint, per_tenant=max(endpoint, slots // 5))


class Slots(Generic[Claim]):
    """What this worker holds (leased) and runs, by endpoint and by tenant."""

    def __init__(self, shares: Shares) -> None:
        self.shares = shares
        self.held = 0
        self._held_endpoint: Counter[str] = Counter()
        self._held_tenant: Counter[str] = Counter()
        self._running_endpoint: Counter[str] = Counter()
        self._running_tenant: Counter[str] = Counter()
        self._waiting: list[Claim] = []

    @property
    def free(self) -> int:
        return self.shares.slots - self.held

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def full_endpoints(self, leaving: Sequence[Held] = ()) -> list[str]:
        """Endpoints left out of claims: they hold a share running and a share waiting
        (not counting the `leaving` claims)."""
        cap = HELD_SHARES * self.shares.per_endpoint
        gone = Counter(claim.endpoint_id for claim in leaving)
        return [key for key, held in self._held_endpoint.items() if held - gone[key] >= cap]

    def full_tenants(self, leaving: Sequence[Held] = ()) -> list[str]:
        cap = HELD_SHARES * self.shares.per_tenant
        gone = Counter(claim.tenant_id for claim in leaving)
        return [key for key, held in self._held_tenant.items() if held - gone[key] >= cap]

    def admit(self, claims: list[Claim]) -> list[Claim]:
        """Hold `claims`; returns those to start now (the others wait for room)."""
        for claim in claims:
            self.held += 1
            self._held_endpoint[claim.endpoint_id] += 1
            self._held_tenant[claim.tenant_id] += 1
        self._waiting.extend(claims)
        return self._startable()

    def finished(self, claim: Claim) -> list[Claim]:
        """`claim`'s attempt ended; returns the waiting claims that may start now."""
        _decrement(self._running_endpoint, claim.endpoint_id)
        _decrement(self._running_tenant, claim.tenant_id)
        return self._startable() if self._waiting else []

    def released(self, claims: list[Claim]) -> bool:
        """`claims`' outcomes are recorded: their slots are free. True when an endpoint
        or a tenant that held its share no longer does (its deliveries may be claimed)."""
        reopened = False
        for claim in claims:
            self.held -= 1
            endpoint = _decrement(self._held_endpoint, claim.endpoint_id)
            tenant = _decrement(self._held_tenant, claim.tenant_id)
            reopened |= endpoint == HELD_SHARES * self.shares.per_endpoint - 1
            reopened |= tenant == HELD_SHARES * self.shares.per_tenant - 1
        return reopened

    def take_waiting(self) -> list[Claim]:
        """The claims still waiting for room, no longer waiting (the worker is stopping)."""
        waiting, self._waiting = self._waiting, []
        return waiting

    def _startable(self) -> list[Claim]:
        start: list[Claim] = []
        keep: list[Claim] = []
        for claim in self._waiting:
            if (
                self._running_endpoint[claim.endpoint_id] < self.shares.per_endpoint
                and self._running_tenant[claim.tenant_id] < self.shares.per_tenant
            ):
                self._running_endpoint[claim.endpoint_id] += 1
                self._running_tenant[claim.tenant_id] += 1
                start.append(claim)
            else:
                keep.append(claim)
        self._waiting = keep
        return start


def _decrement(counter: Counter[str], key: str) -> int:
    left = counter[key] - 1
    if left > 0:
        counter[key] = left
    else:
        del counter[key]
    return left


def _not_full(is_postgres: bool) -> ColumnElement[bool]:
    """Leaves out the endpoints and tenants named in the `full_endpoints` and `full_tenants`
    parameters. PostgreSQL binds one array each (the statement's text never changes, so it
    stays prepared); SQLite expands the lists."""
    if is_postgres:
        names = ARRAY(String())
        return and_(
            Delivery.endpoint_id != all_(bindparam("full_endpoints", type_=names)),
            Delivery.tenant_id != all_(bindparam("full_tenants", type_=names)),
        )
    return and_(
        Delivery.endpoint_id.not_in(bindparam("full_endpoints", expanding=True)),
        Delivery.tenant_id.not_in(bindparam("full_tenants", expanding=True)),
    )


def _due() -> ColumnElement[bool]:
    return and_(
        Delivery.status == DeliveryStatus.PENDING,
        Delivery.next_attempt_at <= bindparam("now", type_=Delivery.next_attempt_at.type),
    )


def fair_pick(shares: Shares) -> Select[Any]:
    """SQLite's fair pick (PostgreSQL's is part of its one-statement turn, turnover.py, with
    the same rule): the ids to claim, in claim order: of the oldest due rows (`window` of
    them) of endpoints and tenants with room, at most a share per endpoint and per tenant,
    every tenant's first before any tenant's second. Parameters: `now`, `limit`, `window`,
    `full_endpoints`, `full_tenants` (see `claim_parameters`). A plain read in the turn's
    write transaction (SQLite's one writer): `claim_picked` leases the rows."""
    candidates = (
        select(Delivery.id, Delivery.endpoint_id, Delivery.tenant_id, Delivery.next_attempt_at)
        .where(_due(), _not_full(False))
        .order_by(Delivery.next_attempt_at)
        .limit(bindparam("window"))
        .cte("candidates")
    )
    c = candidates.c
    ranked = select(
        c.id,
        c.next_attempt_at,
        func.row_number()
        .over(partition_by=c.endpoint_id, order_by=(c.next_attempt_at, c.id))
        .label("endpoint_rank"),
        func.row_number()
        .over(partition_by=c.tenant_id, order_by=(c.next_attempt_at, c.id))
        .label("tenant_rank"),
    ).subquery("ranked")
    r = ranked.c
    return (
        select(r.id)
        .where(r.endpoint_rank <= shares.per_endpoint, r.tenant_rank <= shares.per_tenant)
        .order_by(r.tenant_rank, r.next_attempt_at)
        .limit(bindparam("limit"))
    )


def claim_picked(values: dict[str, Any]) -> Update:
    """SQLite: `UPDATE … SET values WHERE id IN (:ids) AND due`: the picked rows, still due
    (checked again), found by primary key. Parameters: `ids`, `now`. Add `.returning(…)`."""
    locked = (
        select(Delivery.id.label("key"))
        .where(Delivery.id.in_(bindparam("ids", expanding=True)), _due())
        .cte("due")
    )
    return (
        update(Delivery)
        .where(Delivery.id == locked.c.key)
        .values(**values)
        .execution_options(synchronize_session=False)
    )


def claim_parameters(
    now: Any, limit: int, slots: Slots[Any], leaving: Sequence[Held] = ()
) -> dict[str, Any]:
    """The fair pick's parameters; `leaving`: held claims whose room counts as free (their
    outcomes are recorded in the same turn)."""
    return {
        "now": now,
        "limit": limit,
        "window": limit * _WINDOW,
        "full_endpoints": slots.full_endpoints(leaving),
        "full_tenants": slots.full_tenants(leaving),
    }


def next_due_query(is_postgres: bool) -> Select[datetime | None]:
    """When the earliest pending delivery of an endpoint and a tenant with room falls due
    (parameters `full_endpoints`, `full_tenants`)."""
    return select(func.min(Delivery.next_attempt_at)).where(
        Delivery.status == DeliveryStatus.PENDING, _not_full(is_postgres)
    )
