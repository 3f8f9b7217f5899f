"""The reads the dashboard's pages and the staff notification list call (accounts/queries.py,
intakes/queries.py, webhooks/health.py): what they find, in which order, and nothing for an
unknown id."""

from __future__ import annotations

from datetime import timedelta

from gatehouse.accounts import queries as accounts
from gatehouse.ids import new_id
from gatehouse.intakes import queries as intakes
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import Notification
from gatehouse.storage.tables.staff_identity import StaffPasskey
from gatehouse.webhooks import recent_notifications
from tests.support.factories import add_intake, make_staff, make_tenant


async def test_tenants_keys_and_their_owners(runtime: Runtime) -> None:
    second = await make_tenant(runtime, name="Zulu bank", with_intake=False)
    first = await make_tenant(runtime, name="Alpha bank", with_intake=False)
    async with runtime.db.read() as session:
        names = [t.name for t in await accounts.tenants_by_name(session)]
        found = await accounts.tenant_by_id(session, first.tenant_id)
        missing = await accounts.tenant_by_id(session, "ten_missing")
        keys = await accounts.api_keys_of(session, first.tenant_id)
        owner = await accounts.tenant_of_api_key(session, second.key_id)
        nobody = await accounts.tenant_of_api_key(session, "key_missing")
    assert names.index("Alpha bank") < names.index("Zulu bank")
    assert found is not None
    assert found.name == "Alpha bank"
    assert missing is None
    assert [k.id for k in keys] == [first.key_id]
    assert owner == second.tenant_id
    assert nobody is None


async def test_a_tenants_intakes_in_creation_order(runtime: Runtime) -> None:
    tenant = await make_tenant(runtime, with_intake=False)
    other = await make_tenant(runtime)
    later = await add_intake(runtime, tenant.tenant_id, name="B", order=1)
    detached = await add_intake(runtime, tenant.tenant_id, name="A", order=9, attached=False)
    async with runtime.db.read() as session:
        listed = [i.id for i in await intakes.intakes_of(session, tenant.tenant_id)]
        owner = await intakes.tenant_of_intake(session, str(other.label_id))
        nobody = await intakes.tenant_of_intake(session, "lbl_missing")
    assert listed == [later, detached]
    assert owner == other.tenant_id
    assert nobody is None


async def test_a_staff_members_email_and_passkeys(runtime: Runtime) -> None:
    member = await make_staff(runtime, "analyst")
    async with runtime.db.read() as session:
        assert await accounts.staff_email(session, member.staff_id) == member.email
        assert await accounts.staff_email(session, "stf_missing") is None
        assert await accounts.staff_email(session, None) is None
        assert await accounts.passkey_count(session, member.staff_id) == 0
        assert await accounts.passkey_count(session, None) == 0
    async with runtime.db.write() as session:
        for n in range(2):
            session.add(
                StaffPasskey(
                    id=new_id("pk"),
                    staff_id=member.staff_id,
                    credential_id=new_id("cred"),
                    public_key="pk",
                    sign_count=0,
                    name=f"key {n}",
                    transports=None,
                    created_at=runtime.now(),
                    last_used_at=None,
                )
            )
    async with runtime.db.read() as session:
        assert await accounts.passkey_count(session, member.staff_id) == 2


async def test_recent_notifications_newest_first_per_tenant_and_capped(runtime: Runtime) -> None:
    one = await make_tenant(runtime, with_intake=False)
    two = await make_tenant(runtime, with_intake=False)
    now = runtime.now() + timedelta(days=3650)  # newer than any other test's notification
    made: list[tuple[str, str]] = []
    async with runtime.db.write() as session:
        for n, tenant_id in enumerate([one.tenant_id, two.tenant_id, one.tenant_id]):
            notification_id = new_id("ntf")
            made.append((notification_id, tenant_id))
            session.add(
                Notification(
                    id=notification_id,
                    kind="endpoint_disabled",
                    tenant_id=tenant_id,
                    endpoint_id=None,
                    reason="receiver_gone",
                    created_at=now + timedelta(minutes=n),
                    acknowledged=False,
                )
            )
    async with runtime.db.read() as session:
        of_one = [x.id for x in await recent_notifications(session, one.tenant_id)]
        everyone = [x.id for x in await recent_notifications(session, None, 2)]
        empty_filter = [x.id for x in await recent_notifications(session, "", 3)]
    assert of_one == [made[2][0], made[0][0]]
    assert everyone == [made[2][0], made[1][0]]
    assert empty_filter == [made[2][0], made[1][0], made[0][0]]
