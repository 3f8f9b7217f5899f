"""Fixtures of the HTTP-layer tests: the app with the test-only probe routes."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from gatehouse.runtime import Runtime
from tests.support.probe import probe_app


@pytest.fixture
def probe(runtime: Runtime) -> FastAPI:
    return probe_app(runtime)


@pytest.fixture
async def probe_client(probe: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=probe, client=("127.0.0.1", 50001))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c
