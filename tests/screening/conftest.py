"""Fixtures of the screening tests: a loaded generated list, staff of each role, and an
application of a screened intake whose answers a test sets."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from gatehouse.runtime import Runtime
from gatehouse.screening import request_screening
from gatehouse.storage.tables.applications import Application
from tests.screening.support import load, screened_intake, write_list
from tests.support.cases import make_application
from tests.support.factories import StaffFixture, TenantFixture, make_staff

Applicant = Callable[..., Awaitable[str]]


@pytest.fixture
async def analyst(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "analyst")


@pytest.fixture
async def mlro(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "mlro")


@pytest.fixture
async def listed(runtime: Runtime, tmp_path: Path) -> Path:
    path = write_list(tmp_path / "entities.ftm.json")
    await load(runtime, path)
    return path


@pytest.fixture
async def intake_id(client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture) -> str:
    return await screened_intake(client, staff.headers, tenant.tenant_id)


@pytest.fixture
def applicant(runtime: Runtime, tenant: TenantFixture, intake_id: str) -> Applicant:
    """Make an application of the screened intake with these answers, and ask for its
    screening (as the portal's form save does)."""

    async def make(company: str = "Acme Ltd", **answers: Any) -> str:
        case = await make_application(
            runtime, tenant.tenant_id, company_name=company, label_id=intake_id
        )
        async with runtime.db.write() as session:
            application = await session.get(Application, case.client_id)
            assert application is not None
            application.form_data = dict(answers)
            await request_screening(session, case.client_id, "test", now=runtime.now())
        return case.client_id

    return make
