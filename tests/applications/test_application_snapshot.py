"""The one-statement load of an application's members, latest decision and current
information request (bench/RESULTS.md) gives exactly what the per-table queries give."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import update

from gatehouse.applications.queries import rows as repo
from gatehouse.applications.queries.snapshot import load_attachments, read_application_view
from gatehouse.applications.schemas import application_view, open_info_request_view
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import (
    Application,
    Decision,
    InfoRequest,
    InfoRequestItem,
    Member,
)
from tests.support.factories import TenantFixture


async def _per_table_view(runtime: Runtime, application_id: str) -> dict[str, Any]:
    """The application read built one table at a time (applications_repo)."""
    async with runtime.db.read() as session:
        application = await repo.application_by_id(session, application_id)
        assert application is not None
        members = await repo.members_of(session, application_id)
        decision = await repo.latest_decision(session, application_id)
        request = await repo.current_info_request(session, application_id)
        summary = None
        if request is not None:
            items = (await repo.items_of(session, [request.id]))[request.id]
            summary = open_info_request_view(request, items)
        return application_view(application, members, decision, summary)


async def _snapshot_view(runtime: Runtime, application_id: str) -> dict[str, Any]:
    async with runtime.db.read() as session:
        application = await repo.application_by_id(session, application_id)
        assert application is not None
        found = await load_attachments(session, application_id)
        return application_view(
            application, found.members, found.latest_decision, found.open_info_request
        )


async def _application(runtime: Runtime, tenant: TenantFixture, members: int) -> str:
    now = runtime.now()
    app_id = new_id("app")
    async with runtime.db.write() as session:
        session.add(
            Application(
                id=app_id,
                tenant_id=tenant.tenant_id,
                identity=f"email:{app_id}@example.test",
                applicant_email=f"{app_id}@example.test",
                company_name="Snapshot Ltd",
                label_id=tenant.label_id,
                status="pending",
                created_at=now,
                updated_at=now,
            )
        )
        await session.flush()
        for n in range(members):
            # Two members share a joining time, so the tie-break by uid is exercised.
            session.add(
                Member(
                    id=new_id("mem"),
                    application_id=app_id,
                    email=f"m{n}@example.test",
                    role="applicant" if n == 0 else "teammate",
                    joined_at=now + timedelta(seconds=min(n, 2)),
                )
            )
    return app_id


async def test_no_members_no_decision_no_request(runtime: Runtime, tenant: TenantFixture) -> None:
    app_id = await _application(runtime, tenant, members=0)
    snapshot = await _snapshot_view(runtime, app_id)
    assert snapshot == await _per_table_view(runtime, app_id)
    assert await read_application_view(runtime.db, tenant.tenant_id, app_id) == snapshot
    assert snapshot["members"] == []
    assert snapshot["decision"] is None
    assert snapshot["openInfoRequest"] is None


async def test_members_decisions_and_requests_match_the_per_table_reads(
    runtime: Runtime, tenant: TenantFixture
) -> None:
    app_id = await _application(runtime, tenant, members=4)
    other_id = await _application(runtime, tenant, members=1)
    now = runtime.now()
    async with runtime.db.write() as session:
        # Two decisions at the same newest time: the higher id wins (docs/reference/tenant-api.md).
        for n, (action, at) in enumerate(
            [("hold", now), ("approve", now + timedelta(minutes=1)), ("reject", now)]
        ):
            session.add(
                Decision(
                    id=f"dec_{n}",
                    application_id=app_id,
                    action=action,
                    from_status="pending",
                    to_status="hold",
                    by_role="analyst",
                    comment=f"comment {n}",
                    at=at,
                )
            )
        for decision_id, action in (("dec_9", "approve"), ("dec_8", "hold")):
            session.add(
                Decision(
                    id=decision_id, application_id=app_id, action=action, at=now + timedelta(1)
                )
            )
        session.add(
            Decision(id="dec_z", application_id=other_id, action="other", at=now + timedelta(2))
        )
        # seq 3 is closed, seq 2 is open: the current request is seq 2.
        for seq, status in ((1, "responded"), (2, "open"), (3, "closed")):
            request_id = f"ir_{seq}"
            session.add(
                InfoRequest(
                    id=request_id,
                    application_id=app_id,
                    seq=seq,
                    round=seq + 1,
                    status=status,
                    comment=None,
                    created_at=now,
                    updated_at=now + timedelta(seconds=seq),
                )
            )
            await session.flush()
            for position, item_status in enumerate(
                ["open", "reopened", "answered", "accepted", "answered", "open"][: seq + 3]
            ):
                session.add(
                    InfoRequestItem(
                        id=f"itm_{seq}_{position}",
                        request_id=request_id,
                        position=position,
                        type="question",
                        prompt="Why?",
                        status=item_status,
                    )
                )
    snapshot = await _snapshot_view(runtime, app_id)
    assert snapshot == await _per_table_view(runtime, app_id)
    assert await read_application_view(runtime.db, tenant.tenant_id, app_id) == snapshot
    assert [m["email"] for m in snapshot["members"]] == [
        "m0@example.test",
        "m1@example.test",
        *sorted(
            ["m2@example.test", "m3@example.test"],
            key=lambda email: next(m["uid"] for m in snapshot["members"] if m["email"] == email),
        ),
    ]
    assert snapshot["decision"]["comment"] is None
    assert snapshot["decision"]["action"] == "approve"
    summary = snapshot["openInfoRequest"]
    assert summary["requestId"] == "ir_2"
    assert (summary["openItems"], summary["answeredItems"]) == (2, 2)
    assert await _snapshot_view(runtime, other_id) == await _per_table_view(runtime, other_id)


async def test_the_one_statement_read_hides_missing_foreign_and_erased(
    runtime: Runtime, tenant: TenantFixture
) -> None:
    app_id = await _application(runtime, tenant, members=2)
    assert await read_application_view(runtime.db, tenant.tenant_id, app_id) is not None
    assert await read_application_view(runtime.db, "ten_other", app_id) is None
    assert await read_application_view(runtime.db, tenant.tenant_id, "app_missing") is None
    async with runtime.db.write() as session:
        await session.execute(
            update(Application).where(Application.id == app_id).values(erased_at=runtime.now())
        )
    assert await read_application_view(runtime.db, tenant.tenant_id, app_id) is None
