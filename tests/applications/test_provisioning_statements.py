"""The statements of provisioning (applications/queries/provisioning.py): the one-round-trip
lookup with the intake choice's rows (`find` without the lock, PostgreSQL's new identities)
finds what the locked lookup finds, erased pseudonyms included, and the rows the intake
choice reads, for the tenant's attached intakes or a named label."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
from sqlalchemy import update

from gatehouse.applications.queries.provisioning import ProvisioningStore
from gatehouse.domain.identity import erased_identity, erased_identity_candidates
from gatehouse.intakes.service import CHOICE_ATTACHED, CHOICE_BY_LABEL
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tx_statements import ConnectionTx
from tests.api.support import erase, provision
from tests.support.factories import TenantFixture, add_intake, make_tenant

_COMPARED = ("id", "tenant_id", "identity", "applicant_email", "owner_uid", "locked", "status")


def _fields(application: Application | None) -> dict[str, Any] | None:
    if application is None:
        return None
    return {key: getattr(application, key) for key in (*_COMPARED, "created_at", "erased_at")}


async def _both(
    runtime: Runtime, tenant_id: str, identity: str, label_id: str | None
) -> tuple[Any, Sequence[Any], Any, list[Any]]:
    pseudonyms = erased_identity_candidates(runtime.crypto.hash_candidates(identity))
    async with runtime.db.transaction() as connection:
        store = ProvisioningStore(ConnectionTx(connection), tenant_id, identity, pseudonyms)
        loose = await store.find(label_id, locked=False)
        found, intakes = loose.application, loose.intakes
        locked = (await store.find(label_id, locked=True)).application
        if label_id is None:
            result = await connection.execute(CHOICE_ATTACHED, {"tenant_id": tenant_id})
        else:
            result = await connection.execute(CHOICE_BY_LABEL, {"label_id": label_id})
        choice = [tuple(row) for row in result.all()]
    return found, intakes, locked, choice


def _sorted(rows: Sequence[Any]) -> list[tuple[Any, ...]]:
    return sorted((tuple(row) for row in rows), key=lambda row: str(row[0]))


async def test_a_new_identity_finds_nothing_and_the_intakes(
    runtime: Runtime, tenant: TenantFixture
) -> None:
    await add_intake(runtime, tenant.tenant_id, "Second", order=2, checklist=[])
    await add_intake(runtime, tenant.tenant_id, "Detached", attached=False)
    found, intakes, locked, choice = await _both(
        runtime, tenant.tenant_id, "email:new@example.test", None
    )
    assert found is None
    assert locked is None
    assert len(choice) == 2  # the attached ones
    assert _sorted(intakes) == _sorted(choice)
    assert all(isinstance(row.checklist, list) for row in intakes)
    assert {row._fields for row in intakes} == {tuple(CHOICE_ATTACHED.selected_columns.keys())}


async def test_an_existing_identity_is_found_as_the_locked_lookup_finds_it(
    runtime: Runtime, client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    created = await provision(client, tenant, "ann@example.test", externalRef="stmt-1")
    assert tenant.label_id is not None
    found, intakes, locked, choice = await _both(
        runtime, tenant.tenant_id, "ref:stmt-1", tenant.label_id
    )
    assert found is not None
    assert found.id == created["clientId"]
    assert _fields(found) == _fields(locked)
    assert _sorted(intakes) == _sorted(choice)
    assert [row.id for row in intakes] == [tenant.label_id]


async def test_an_erased_identity_is_found_by_its_pseudonym(
    runtime: Runtime, client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    created = await provision(client, tenant, "bo@example.test", externalRef="stmt-gone")
    await erase(runtime, created["clientId"])
    pseudonym = erased_identity("ref:stmt-gone", runtime.crypto.hash_secret)
    async with runtime.db.write() as session:
        await session.execute(
            update(Application)
            .where(Application.id == created["clientId"])
            .values(identity=pseudonym)
        )
    found, _intakes, locked, _choice = await _both(runtime, tenant.tenant_id, "ref:stmt-gone", None)
    assert found is not None
    assert found.id == created["clientId"]
    assert found.erased_at is not None
    assert found.identity == pseudonym
    assert _fields(found) == _fields(locked)


async def test_another_tenants_identity_and_intakes_are_not_seen(
    runtime: Runtime, client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    other_tenant = await make_tenant(runtime, name="Other")
    await provision(client, other_tenant, "cy@example.test", externalRef="stmt-other")
    found, intakes, _locked, _choice = await _both(
        runtime, tenant.tenant_id, "ref:stmt-other", None
    )
    assert found is None
    assert {row.tenant_id for row in intakes} == {tenant.tenant_id}
