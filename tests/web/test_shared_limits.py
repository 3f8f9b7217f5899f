"""Per-key budgets shared through Redis across processes (docs/reference/tenant-api.md §4.5).

Skipped without GATEHOUSE_TEST_REDIS_URL. Each test's API key is new, so
windows left in Redis by other tests or runs never interfere.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from gatehouse.runtime import Runtime
from tests.conftest import TEST_SECRET_KEY, make_settings
from tests.support.factories import make_tenant
from tests.support.live import free_port
from tests.support.probe import probe_app
from tests.support.processes import clean_env, started


async def test_two_runtimes_on_one_redis_share_a_key_budget(
    database_url: str, redis_url: str, runtime: Runtime
) -> None:
    tenant = await make_tenant(runtime, with_intake=False)
    settings = make_settings(database_url, redis_url=redis_url, rate_limit_per_key=4)
    first, second = Runtime.build(settings), Runtime.build(settings)
    try:
        statuses = []
        for n in range(6):
            app = probe_app(first if n % 2 == 0 else second)
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
                response = await c.get("/v1/probe", headers=tenant.headers)
            statuses.append(response.status_code)
        assert statuses == [200, 200, 200, 200, 429, 429]
    finally:
        await first.close()
        await second.close()


@pytest.mark.slow
async def test_two_server_processes_on_one_redis_share_a_key_budget(
    database_url: str, redis_url: str, runtime: Runtime, tmp_path: Path
) -> None:
    tenant = await make_tenant(runtime)
    env = clean_env(
        database_url=database_url,
        secret_key=TEST_SECRET_KEY,
        redis_url=redis_url,
        rate_limit_per_key="10",
        rate_limit_per_ip="100000",
    )
    ports = [free_port(), free_port()]
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    with (
        started(["serve", "--port", str(ports[0]), "--no-worker"], env, tmp_path) as one,
        started(["serve", "--port", str(ports[1]), "--no-worker"], env, tmp_path) as two,
    ):
        one.wait_healthy(bases[0])
        two.wait_healthy(bases[1])
        async with httpx.AsyncClient(timeout=10) as client:
            remaining = []
            for n in range(10):
                response = await client.get(bases[n % 2] + "/v1/intakes", headers=tenant.headers)
                assert response.status_code == 200, response.text
                remaining.append(int(response.headers["ratelimit-remaining"]))
            assert remaining == list(range(9, -1, -1))
            for base in bases:
                refused = await client.get(base + "/v1/intakes", headers=tenant.headers)
                assert refused.status_code == 429
                assert refused.headers["retry-after"] == refused.headers["ratelimit-reset"]
