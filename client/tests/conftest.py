"""Fixtures for the client's tests: the Gatehouse test fixtures (a migrated
database, a runtime, tenants) and a real Gatehouse server on a loopback port."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from fastapi import FastAPI
from tests.conftest import database_url, make_settings, runtime, settings, staff, tenant
from tests.support.live import serve_in_thread

from gatehouse.app import create_app
from gatehouse.settings import Settings

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

__all__ = ["database_url", "runtime", "settings", "staff", "tenant"]


@pytest.fixture
def live_settings(database_url: str) -> Settings:
    # A high per-key budget: the sweep test makes a few hundred calls in seconds.
    return make_settings(database_url, rate_limit_per_key=100_000)


@pytest.fixture
def live_server(runtime: object, live_settings: Settings) -> Iterator[str]:
    """Base URL of a real Gatehouse server (uvicorn in a thread) over the test database.

    Depends on `runtime`, which empties every table first; the server builds
    its own runtime inside its own event loop."""

    def make_app() -> FastAPI:
        return create_app(live_settings)

    with serve_in_thread(make_app) as base_url:
        yield base_url


def load_example(name: str) -> ModuleType:
    """Import one of client/examples/*.py by path (they are scripts, not a package)."""
    path = EXAMPLES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"gatehouse_client_example_{name}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
