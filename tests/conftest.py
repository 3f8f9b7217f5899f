"""Shared fixtures: a migrated database (SQLite, or PostgreSQL when
GATEHOUSE_TEST_DATABASE_URL is set), a runtime and app per test, an HTTP
client over ASGI, and factories for tenants and staff."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from fastapi import FastAPI

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from tests.support.browser import SAME_ORIGIN
from tests.support.databases import REDIS_URL, clear_all_tables, migrated_database
from tests.support.factories import StaffFixture, TenantFixture, make_staff, make_tenant
from tests.support.leaks import CAPTURED, EXTERNAL_LINES, leaked_lines

TEST_SECRET_KEY = "test-secret-key-for-gatehouse-tests-only-0123456789"


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with migrated_database(tmp_path_factory.mktemp("db")) as url:
        yield url


def make_settings(database_url: str, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "database_url": database_url,
        "secret_key": TEST_SECRET_KEY,
        "public_url": "http://testserver",
        "rate_limit_per_ip": 1_000_000,
        "webhook_allow_private_urls": True,
        "webhook_backoff_scale": 0.001,
        "verify_callback_backoff_scale": 0.001,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(database_url)


@pytest.fixture
async def runtime(settings: Settings) -> AsyncIterator[Runtime]:
    rt = Runtime.build(settings)
    await clear_all_tables(rt.db)
    yield rt
    await rt.close()


@pytest.fixture
def app(runtime: Runtime) -> FastAPI:
    return create_app(runtime.settings, runtime)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    # A browser sends its page's Origin on every unsafe request; the portal and the
    # dashboard refuse one without it (docs/reference/portal.md §6).
    async with httpx.AsyncClient(
        transport=transport, base_url="http://testserver", headers=SAME_ORIGIN
    ) as c:
        yield c


@pytest.fixture
async def tenant(runtime: Runtime) -> TenantFixture:
    return await make_tenant(runtime)


@pytest.fixture
async def staff(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "super_admin")


@pytest.fixture
def redis_url() -> str:
    if not REDIS_URL:
        pytest.skip("GATEHOUSE_TEST_REDIS_URL is not set")
    return REDIS_URL


def pytest_configure(config: pytest.Config) -> None:
    root = logging.getLogger()
    root.addHandler(CAPTURED)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when any captured log line holds a secret."""
    leaks = leaked_lines()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if not leaks:
        if reporter is not None:
            total = len(CAPTURED.lines) + len(EXTERNAL_LINES)
            reporter.write_line(f"log leak check: {total} log lines, no secrets")
        return
    if reporter is not None:
        # Say where, never what: the report itself must not spread the secret.
        for number, what in leaks[:20]:
            reporter.write_line(f"LOG LEAK: captured line {number} holds {what}", red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def captured_logs() -> list[str]:
    """Every log line the suite has produced so far (production JSON format)."""
    return CAPTURED.lines
