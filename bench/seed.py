"""Seeding the benchmark database fast: bulk SQL inserts into the real tables.

The tenant and its API key are made by the product's own services (so the key
is hashed exactly as in production); the 100,000+ applications and their
applicant members are written with multi-row INSERTs in large batches, with
distinct `updated_at` values so that keyset paging walks a real index.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import insert, text

from gatehouse.accounts.service import create_api_key, create_tenant
from gatehouse.domain.principals import ALL_SCOPES
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.storage.tables.applications import Application, Intake, Member
from gatehouse.timeutil import utcnow

BATCH = 5_000
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
# A quarter of the seeded applications are not pending, so status filters select.
_STATUSES = ("pending", "pending", "pending", "needs_info", "hold", "active", "rejected")


@dataclass
class Seeded:
    tenant_id: str
    api_key: str
    label_id: str
    # A sample of seeded applications, oldest last, for reads.
    sample_ids: list[str]
    # Every seeded application, for member adds (each application takes at most 20
    # members, so repeated runs must spread over many).
    application_ids: list[str]
    # The email of one seeded application (the "provisioning repeat" identity).
    repeat_email: str
    applications: int


def _id(prefix: str, number: int) -> str:
    """Ids shaped like `gatehouse.ids.new_id` (9 ordered characters + 16 random)."""
    ordered = []
    for _ in range(9):
        number, rem = divmod(number, 36)
        ordered.append(_ALPHABET[rem])
    return f"{prefix}_{''.join(reversed(ordered))}{secrets.token_hex(8)}"


async def seed(settings: Settings, applications: int, sample: int = 2_000) -> Seeded:
    """A tenant with an all-scope key, one intake and `applications` applications."""
    runtime = Runtime.build(settings)
    try:
        tenant = await create_tenant(runtime, "Bench tenant")
        tenant_id = str(tenant["tenantId"])
        key = await create_api_key(runtime, tenant_id, "bench", list(ALL_SCOPES))
        now = utcnow()
        label_id = _id("lbl", 1)
        async with runtime.db.write() as session:
            await session.execute(
                insert(Intake),
                [
                    {
                        "id": label_id,
                        "tenant_id": tenant_id,
                        "position": 1,
                        "name": "Bench intake",
                        "order": 1,
                        "attached": True,
                        "checklist": [
                            {
                                "key": "passport",
                                "label": "Passport",
                                "kind": "document",
                                "required": True,
                            }
                        ],
                        "form_fields": [],
                        "created_at": now,
                        "updated_at": now,
                    }
                ],
            )
        start = now - timedelta(days=30)
        sample_ids: list[str] = []
        application_ids: list[str] = []
        step = max(1, applications // sample)
        for first in range(0, applications, BATCH):
            apps: list[dict[str, Any]] = []
            members: list[dict[str, Any]] = []
            for n in range(first, min(first + BATCH, applications)):
                at = start + timedelta(milliseconds=n * 7)
                email = f"seed{n}@bench.test"
                app_id = _id("app", n)
                member_id = _id("mem", n)
                apps.append(
                    {
                        "id": app_id,
                        "tenant_id": tenant_id,
                        "identity": f"email:{email}",
                        "external_ref": None,
                        "applicant_email": email,
                        "company_name": f"Seed company {n}",
                        "label_id": label_id,
                        "status": _STATUSES[n % len(_STATUSES)],
                        "owner_uid": member_id,
                        "locked": False,
                        "form_data": {},
                        "event_sequence": 0,
                        "request_sequence": 0,
                        "created_at": at,
                        "updated_at": at,
                    }
                )
                members.append(
                    {
                        "id": member_id,
                        "application_id": app_id,
                        "email": email,
                        "role": "applicant",
                        "joined_at": at,
                    }
                )
                application_ids.append(app_id)
                if n % step == 0:
                    sample_ids.append(app_id)
            async with runtime.db.write() as session:
                await session.execute(insert(Application), apps)
                await session.execute(insert(Member), members)
        # Fresh planner statistics, as autovacuum would gather after a bulk load. On
        # PostgreSQL a VACUUM too, as an operator would after one: otherwise the
        # insert-triggered autovacuum of 100,000 new rows runs during the first
        # scenarios and competes with the server for this machine's two cores.
        if runtime.db.is_sqlite:
            async with runtime.db.write() as session:
                await session.execute(text("ANALYZE"))
        else:
            engine = runtime.db.write_engine.execution_options(isolation_level="AUTOCOMMIT")
            async with engine.connect() as connection:
                await connection.execute(text("VACUUM (ANALYZE)"))
        return Seeded(
            tenant_id=tenant_id,
            api_key=str(key["apiKey"]),
            label_id=label_id,
            sample_ids=sample_ids,
            application_ids=application_ids,
            repeat_email=f"seed{applications // 2}@bench.test",
            applications=applications,
        )
    finally:
        await runtime.close()
