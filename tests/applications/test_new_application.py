"""`NewApplication` (applications/queries/provisioning.py): what a new identity inserts, built
once. The row names every column of the table, its owner is the applicant member, the audit
entry is the creation's, and the store inserts exactly these rows."""

from __future__ import annotations

from sqlalchemy import select

from gatehouse.applications.queries.provisioning import NewApplication, ProvisioningStore
from gatehouse.audit.context import WriteContext
from gatehouse.domain.identity import normalize_applicant
from gatehouse.domain.members import ROLE_APPLICANT
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Member
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.storage.tx_statements import Tx
from tests.support.factories import TenantFixture


def _built(runtime: Runtime, tenant: TenantFixture) -> NewApplication:
    ctx = WriteContext("api_key:key_new", tenant.tenant_id, "req_new", runtime.now())
    applicant = normalize_applicant("New@Example.test", "ref-new", None)
    assert tenant.label_id is not None
    return NewApplication.build(ctx, tenant.tenant_id, applicant, tenant.label_id)


def test_the_rows_are_built_once_and_agree(runtime: Runtime, tenant: TenantFixture) -> None:
    new = _built(runtime, tenant)
    row, member, audit = new.row, new.member, new.audit
    assert set(row) == {column.key for column in Application.__table__.c}
    assert row["identity"] == "ref:ref-new"
    assert row["applicant_email"] == "new@example.test"
    assert row["owner_uid"] == member["id"]
    assert member["application_id"] == row["id"]
    assert member["role"] == ROLE_APPLICANT
    assert member["joined_at"] == row["created_at"] == row["updated_at"]
    assert audit["action"] == "application.create"
    assert audit["target"] == audit["application_id"] == row["id"]
    assert (audit["actor"], audit["request_id"]) == ("api_key:key_new", "req_new")
    assert new.application().id == row["id"]
    assert new.applicant_member().id == member["id"]


async def test_the_store_inserts_exactly_these_rows(
    runtime: Runtime, tenant: TenantFixture
) -> None:
    new = _built(runtime, tenant)

    async def create(tx: Tx) -> bool:
        store = ProvisioningStore(tx, tenant.tenant_id, new.row["identity"], [])
        return await store.create(new)

    assert await runtime.db.run_transaction(create)
    async with runtime.db.read() as session:
        application = await session.get(Application, new.row["id"])
        members = (
            await session.scalars(select(Member).where(Member.application_id == new.row["id"]))
        ).all()
        entries = (
            await session.scalars(
                select(AuditEntry).where(AuditEntry.application_id == new.row["id"])
            )
        ).all()
    assert application is not None
    assert application.owner_uid == new.member["id"]
    assert application.label_id == tenant.label_id
    assert [m.id for m in members] == [new.member["id"]]
    assert [(e.id, e.action) for e in entries] == [(new.audit["id"], "application.create")]
