"""All SQL of screening: lists and their index, jobs, states and hits (docs/screening.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    BigInteger,
    Row,
    Table,
    delete,
    func,
    insert,
    literal,
    select,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.screening import HitStatus
from gatehouse.storage.tables.applications import Application, Intake
from gatehouse.storage.tables.core import StaffMember
from gatehouse.storage.tables.screening import (
    ApplicationRisk,
    IntakeScreening,
    ScreeningEntity,
    ScreeningGeneration,
    ScreeningHit,
    ScreeningJob,
    ScreeningKey,
    ScreeningList,
    ScreeningState,
)

# Core tables for the bulk inserts of a load (no ORM bookkeeping per row).
ENTITIES = cast(Table, ScreeningEntity.__table__)
KEYS = cast(Table, ScreeningKey.__table__)
# Entity row ids of one generation: generation << ID_SHIFT, plus the entity's position.
ID_SHIFT = 32
KEY_RANGES = 64


def upsert(session: AsyncSession, table: Any) -> Any:
    """`INSERT … ON CONFLICT` of the session's database (both dialects spell it alike)."""
    bind = session.get_bind()
    return (postgresql.insert if bind.dialect.name == "postgresql" else sqlite.insert)(table)


# --- lists ------------------------------------------------------------------------------


async def list_row(session: AsyncSession, name: str) -> ScreeningList | None:
    return await session.get(ScreeningList, name)


async def lists_in_force(session: AsyncSession) -> list[ScreeningList]:
    return list(await session.scalars(select(ScreeningList).order_by(ScreeningList.name)))


async def new_generation(session: AsyncSession, name: str, now: datetime) -> int:
    row = ScreeningGeneration(list_name=name, created_at=now)
    session.add(row)
    await session.flush()
    return int(row.id)


async def insert_entities(
    session: AsyncSession, generation: int, offset: int, batch: Sequence[Any]
) -> None:
    base = (generation << ID_SHIFT) + offset
    await session.execute(
        insert(ENTITIES),
        [
            {
                "id": base + n,
                "generation": generation,
                "entity_id": entity.entity_id,
                "schema": entity.schema,
                "caption": entity.caption,
                "digest": entity.digest,
                "data": entity.data,
            }
            for n, entity in enumerate(batch)
        ],
    )
    keys = [
        {"generation": generation, "key": key, "entity": base + n}
        for n, entity in enumerate(batch)
        for key in entity.keys
    ]
    if keys:
        await session.execute(insert(KEYS), keys)


async def switch_list(
    session: AsyncSession, name: str, generation: int, version: str, entities: int, now: datetime
) -> int | None:
    """Put `generation` in force for the list; the generation it replaces, if any."""
    current = await session.get(ScreeningList, name, with_for_update=True)
    if current is None:
        session.add(
            ScreeningList(
                name=name, generation=generation, version=version, entities=entities, loaded_at=now
            )
        )
        return None
    old = current.generation
    current.generation, current.version = generation, version
    current.entities, current.loaded_at = entities, now
    return old


async def delete_generation(session: AsyncSession, generation: int, part: int) -> None:
    """Delete one of KEY_RANGES parts of a generation's keys, and of its entities."""
    span = (1 << 63) // KEY_RANGES
    keys = [ScreeningKey.generation == generation, ScreeningKey.key >= part * span]
    if part < KEY_RANGES - 1:  # the last part runs to the largest key
        keys.append(ScreeningKey.key < (part + 1) * span)
    await session.execute(delete(ScreeningKey).where(*keys))
    first = generation << ID_SHIFT
    step = (1 << ID_SHIFT) // KEY_RANGES
    await session.execute(
        delete(ScreeningEntity).where(
            ScreeningEntity.id >= first + part * step,
            ScreeningEntity.id < first + (part + 1) * step,
        )
    )
    if part == KEY_RANGES - 1:
        await session.execute(
            delete(ScreeningGeneration).where(ScreeningGeneration.id == generation)
        )


def _postings(generations: Sequence[int], key: int, cap: int) -> Any:
    """The first `cap` entity rows a key names (in the index's order), as a subquery."""
    return (
        select(ScreeningKey.entity)
        .where(ScreeningKey.generation.in_(generations), ScreeningKey.key == key)
        .limit(cap)
        .subquery()
    )


async def posting_counts(
    session: AsyncSession, generations: Sequence[int], keys: Sequence[int], cap: int
) -> dict[int, int]:
    """How many entity rows each key names, counted up to `cap`: one statement."""
    if not keys:
        return {}
    counts = [
        select(func.count()).select_from(_postings(generations, key, cap)).scalar_subquery()
        for key in keys
    ]
    row = (await session.execute(select(*counts))).one()
    return {key: int(count) for key, count in zip(keys, row, strict=True)}


async def ranked_entities(
    session: AsyncSession,
    generations: Sequence[int],
    weights: Mapping[int, int],
    cap: int,
    limit: int,
) -> list[int]:
    """The `limit` entity rows with the largest sum of the weights of the keys they share
    (each key's first `cap` rows), ties by row id: one statement, summed in the database
    instead of every posting brought here."""
    if not weights:
        return []
    parts = []
    for key, weight in weights.items():
        rows = _postings(generations, key, cap)
        parts.append(select(rows.c.entity, literal(weight, BigInteger).label("weight")))
    shared = union_all(*parts).subquery()
    total = func.sum(shared.c.weight)
    statement = (
        select(shared.c.entity)
        .group_by(shared.c.entity)
        .order_by(total.desc(), shared.c.entity)
        .limit(limit)
    )
    return [int(entity) for entity in await session.scalars(statement)]


async def entities_by_row(session: AsyncSession, ids: Iterable[int]) -> list[ScreeningEntity]:
    return list(await session.scalars(select(ScreeningEntity).where(ScreeningEntity.id.in_(ids))))


# --- applications and intakes -----------------------------------------------------------


async def application(session: AsyncSession, application_id: str) -> Application | None:
    return await session.get(Application, application_id)


async def intake_settings(session: AsyncSession, intake_id: str | None) -> IntakeScreening | None:
    return None if intake_id is None else await session.get(IntakeScreening, intake_id)


async def intake(session: AsyncSession, intake_id: str | None) -> Intake | None:
    return None if intake_id is None else await session.get(Intake, intake_id)


async def state(session: AsyncSession, application_id: str) -> ScreeningState | None:
    return await session.get(ScreeningState, application_id)


async def staff_emails(session: AsyncSession, ids: Iterable[str]) -> dict[str, str]:
    wanted = {i for i in ids if i}
    if not wanted:
        return {}
    rows = await session.execute(
        select(StaffMember.id, StaffMember.email).where(StaffMember.id.in_(wanted))
    )
    return {row.id: row.email for row in rows}


# --- hits -------------------------------------------------------------------------------


async def current_hits(session: AsyncSession, application_id: str) -> list[ScreeningHit]:
    return list(
        await session.scalars(
            select(ScreeningHit)
            .where(ScreeningHit.application_id == application_id, ScreeningHit.current.is_(True))
            .order_by(ScreeningHit.score.desc(), ScreeningHit.id)
        )
    )


async def all_hits(session: AsyncSession, application_id: str) -> list[ScreeningHit]:
    return list(
        await session.scalars(
            select(ScreeningHit).where(ScreeningHit.application_id == application_id)
        )
    )


async def hit(session: AsyncSession, hit_id: str) -> ScreeningHit | None:
    return await session.get(ScreeningHit, hit_id)


async def hit_for_update(session: AsyncSession, hit_id: str) -> ScreeningHit | None:
    return await session.get(ScreeningHit, hit_id, with_for_update=True)


async def hit_counts(session: AsyncSession, application_id: str) -> dict[str, int]:
    rows = await session.execute(
        select(ScreeningHit.status, func.count())
        .where(ScreeningHit.application_id == application_id, ScreeningHit.current.is_(True))
        .group_by(ScreeningHit.status)
    )
    return {status: int(count) for status, count in rows.all()}


async def hit_figures(session: AsyncSession, chosen: Any) -> dict[str, int]:
    """The hits of the latest runs of the applications `chosen` selects, by status."""
    rows = await session.execute(
        select(ScreeningHit.status, func.count())
        .where(ScreeningHit.application_id.in_(chosen), ScreeningHit.current.is_(True))
        .group_by(ScreeningHit.status)
    )
    return {status: int(count) for status, count in rows.all()}


def current_hits_of(application_id: Any, status: str | None = None) -> Any:
    """A correlated count of the hits of an application's latest screening (with `status`
    only, when given), for other features' SELECTs."""
    where = [ScreeningHit.application_id == application_id, ScreeningHit.current.is_(True)]
    if status is not None:
        where.append(ScreeningHit.status == status)
    return select(func.count()).where(*where).scalar_subquery()


def open_hits_of(application_id: Any) -> Any:
    """A correlated count of an application's open hits, for other features' SELECTs."""
    return (
        select(func.count())
        .where(
            ScreeningHit.application_id == application_id,
            ScreeningHit.current.is_(True),
            ScreeningHit.status == HitStatus.OPEN,
        )
        .scalar_subquery()
    )


async def erase(session: AsyncSession, application_id: str) -> None:
    for table in (ScreeningHit, ScreeningState, ScreeningJob, ApplicationRisk):
        await session.execute(delete(table).where(table.application_id == application_id))


async def hide_hits(session: AsyncSession, application_id: str, keep: Sequence[str]) -> None:
    await session.execute(
        update(ScreeningHit)
        .where(ScreeningHit.application_id == application_id, ScreeningHit.id.not_in(keep))
        .values(current=False)
    )


def entity_lists(rows: Sequence[Row[Any]]) -> dict[int, str]:
    return {int(row.generation): str(row.name) for row in rows}
