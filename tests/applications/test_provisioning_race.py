"""Two processes provisioning one identity at once (docs/reference/tenant-api.md §5.1
rule 1), below the in-process queue: on PostgreSQL the loser's single INSERT statement
(application, member and audit entry) must be a no-op on conflict, and the call a repeat."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from gatehouse.applications.service.provisioning import provision
from gatehouse.audit.context import WriteContext
from gatehouse.domain.identity import normalize_applicant
from gatehouse.domain.principals import ALL_SCOPES, TenantPrincipal
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Member
from gatehouse.storage.tables.core import AuditEntry
from tests.support.factories import make_tenant


async def test_the_loser_of_a_concurrent_first_insert_becomes_a_repeat(runtime: Runtime) -> None:
    if runtime.db.is_sqlite:
        pytest.skip("SQLite's write transaction serializes the lookup and the insert")
    tenant = await make_tenant(runtime)
    principal = TenantPrincipal(tenant.tenant_id, tenant.key_id, frozenset(ALL_SCOPES), "active")
    applicant = normalize_applicant("race@x.test")

    def ctx(request_id: str) -> WriteContext:
        return WriteContext.of(principal, request_id, runtime.now())

    async with runtime.db.transaction() as first:
        winner = await provision(first, runtime, ctx("req_first"), principal, applicant, None)
        assert winner.created

        async def second_call() -> tuple[bool, str]:
            async with runtime.db.transaction() as second:
                result = await provision(
                    second, runtime, ctx("req_second"), principal, applicant, None
                )
                return result.created, result.application.id

        # The second call finds no row (the first is not committed), so its INSERT
        # waits on the unique index until the first commits.
        loser = asyncio.create_task(second_call())
        await asyncio.sleep(0.3)
        assert not loser.done()
    created, application_id = await loser

    assert created is False
    assert application_id == winner.application.id
    async with runtime.db.read() as session:
        count = select(func.count())
        assert await session.scalar(count.select_from(Application)) == 1
        assert await session.scalar(count.select_from(Member)) == 1
        actions = (
            await session.scalars(
                select(AuditEntry.action).where(AuditEntry.application_id == application_id)
            )
        ).all()
    assert sorted(actions) == ["application.create", "application.provision"]
