"""One screening job (docs/screening.md, "When screening runs"): find the application's
subjects, look each up in the lists in force through the blocking index, score the
candidates with the matcher, record the hits, then let the caller recompute what depends
on them (the risk), all in one write transaction."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.screening import HitStatus
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.screening import jobs, queries
from gatehouse.screening.pool import in_matcher, matching_available
from gatehouse.screening.schemas import entity_snapshot
from gatehouse.screening.subjects import Subject, basis_of, subjects_of
from gatehouse.storage.tables.screening import ScreeningHit, ScreeningList, ScreeningState

AfterScreening = Callable[[AsyncSession, str], Awaitable[object]]
# A key shared by more entities than this is read only this far (a very common word).
POSTINGS_CAP = 500
# How many candidates, best ranked by the keys they share, the matcher scores per subject.
CANDIDATES = 30


@dataclass(frozen=True, slots=True)
class Found:
    subject: Subject
    list_name: str
    entity_id: str
    digest: str
    entity: dict[str, Any]
    score: float
    explanation: list[str]


# Key weights are summed as integers (exact on both databases): a share scaled by this.
WEIGHT_SCALE = 1_000_000


async def candidates(
    session: AsyncSession, generations: Sequence[int], keys: set[int]
) -> list[int]:
    """The entity rows sharing the most (and the rarest) keys with a subject: a key naming
    n entities weighs 1 / (1 + ln n), n counted up to POSTINGS_CAP; two statements."""
    counts = await queries.posting_counts(session, generations, sorted(keys), POSTINGS_CAP)
    weights = {
        key: round(WEIGHT_SCALE / (1.0 + math.log(count))) for key, count in counts.items() if count
    }
    return await queries.ranked_entities(session, generations, weights, POSTINGS_CAP, CANDIDATES)


async def find(
    runtime: Runtime, subjects: Sequence[Subject], lists: Sequence[ScreeningList]
) -> list[Found]:
    """Every listed entity that scores at least the threshold for a subject."""
    from gatehouse.screening import matching

    if not subjects:
        return []
    names = {item.generation: item.name for item in lists}
    threshold = runtime.settings.screening_threshold
    all_keys = await in_matcher(matching.keys_of, list(subjects))
    async with runtime.db.read() as session:
        rows = [
            await queries.entities_by_row(session, await candidates(session, list(names), keys))
            for keys in all_keys
        ]
    # One round trip to the matcher's process for every subject's candidates.
    scores = await in_matcher(
        matching.score_each,
        [
            (subject, [row.data for row in mine])
            for subject, mine in zip(subjects, rows, strict=True)
        ],
    )
    found: list[Found] = []
    for subject, mine, results in zip(subjects, rows, scores, strict=True):
        for row, result in zip(mine, results, strict=True):
            if result.score >= threshold:
                found.append(
                    Found(
                        subject,
                        names[row.generation],
                        row.entity_id,
                        row.digest,
                        entity_snapshot(row.schema, row.caption, row.data),
                        round(result.score, 4),
                        result.explanation,
                    )
                )
    return found


async def record(
    session: AsyncSession, application_id: str, found: Sequence[Found], basis: str, now: datetime
) -> None:
    """Write a run's hits: a hit found before keeps its resolution while the listed entity
    is unchanged; a changed entity opens it again; hits not found any more are hidden."""
    known = {
        (hit.subject_field, hit.list_name, hit.entity_id): hit
        for hit in await queries.all_hits(session, application_id)
    }
    kept: list[str] = []
    for item in found:
        hit = known.get((item.subject.field, item.list_name, item.entity_id))
        if hit is None:
            hit = ScreeningHit(
                id=new_id("hit"),
                application_id=application_id,
                subject_field=item.subject.field,
                list_name=item.list_name,
                entity_id=item.entity_id,
                status=HitStatus.OPEN,
                created_at=now,
            )
            session.add(hit)
            known[(item.subject.field, item.list_name, item.entity_id)] = hit
        elif hit.entity_digest != item.digest:
            hit.status, hit.comment, hit.resolved_by, hit.resolved_at = (
                HitStatus.OPEN,
                None,
                None,
                None,
            )
        hit.subject_kind, hit.subject_name = item.subject.kind, item.subject.name
        hit.entity_digest, hit.entity = item.digest, item.entity
        hit.score, hit.explanation = item.score, item.explanation
        hit.current, hit.updated_at = True, now
        kept.append(hit.id)
    await session.flush()
    await queries.hide_hits(session, application_id, kept)
    state = await queries.state(session, application_id)
    if state is None:
        session.add(ScreeningState(application_id=application_id, basis=basis, screened_at=now))
    else:
        state.basis, state.screened_at = basis, now


async def run_job(runtime: Runtime, job: jobs.ClaimedJob, after: AfterScreening) -> None:
    async with runtime.db.read() as session:
        application = await queries.application(session, job.application_id)
        erased = application is None or application.erased_at is not None
        subjects: list[Subject] = []
        if application is not None and not erased:
            setting = await queries.intake_settings(session, application.label_id)
            subjects = subjects_of(
                application.company_name,
                application.form_data or {},
                setting.screening if setting else None,
            )
        lists = await queries.lists_in_force(session)
        state = await queries.state(session, job.application_id)
    basis = basis_of(subjects, [f"{item.name}:{item.version}" for item in lists])
    screen = (
        not erased
        and bool(lists)
        and matching_available()
        and (job.force or state is None or state.basis != basis)
    )
    found = await find(runtime, subjects, lists) if screen else None
    async with runtime.db.write() as session:
        if found is not None:
            await record(session, job.application_id, found, basis, runtime.now())
        if not erased:
            await after(session, job.application_id)
        await jobs.complete(session, job)
