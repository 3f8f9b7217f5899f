"""The planner's row estimate (storage/explain.py): an integer on PostgreSQL, near the truth for
a selective condition and a broad one, with bound parameters; None on SQLite."""

from __future__ import annotations

from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.explain import estimated_rows
from gatehouse.storage.tables.core import Tenant
from tests.support.factories import make_tenant


async def test_estimated_rows(runtime: Runtime) -> None:
    for n in range(3):
        await make_tenant(runtime, name=f"Estimate {n}", with_intake=False)
    async with runtime.db.read() as session:
        broad = await estimated_rows(session, select(Tenant.id))
        none = await estimated_rows(session, select(Tenant.id).where(Tenant.name == "it's:%"))
    if runtime.db.is_sqlite:
        assert broad is None
        assert none is None
    else:
        assert isinstance(broad, int)
        assert broad >= 1
        assert isinstance(none, int)
        assert none <= broad
