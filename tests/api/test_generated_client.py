"""A client generated from a live server's /openapi.json works (docs/api-reference.md §3).

openapi-python-client generates a package into a temporary directory, which is imported from
there; its typed calls then provision an application, read it, list applications and register
a webhook endpoint against a real server, and every answer is the generated model, not a dict
(a create returns its model, never None)."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from gatehouse.app import create_app
from gatehouse.settings import Settings
from tests.conftest import make_settings
from tests.support.factories import TenantFixture
from tests.support.live import serve_in_thread

PACKAGE = "gatehouse_api"
GENERATOR = Path(sys.executable).parent / "openapi-python-client"


@pytest.fixture
def live_server(runtime: object, database_url: str) -> Iterator[str]:
    settings: Settings = make_settings(database_url, rate_limit_per_key=100_000)

    def make_app() -> FastAPI:
        return create_app(settings)

    with serve_in_thread(make_app) as base_url:
        yield base_url


@pytest.fixture
def generated(live_server: str, tmp_path: Path) -> Iterator[Any]:
    """The generated package, imported from `tmp_path`."""
    document = tmp_path / "openapi.json"
    # Built on its first request: allow for a busy machine (httpx waits 5 s by default).
    document.write_bytes(httpx.get(f"{live_server}/openapi.json", timeout=60).content)
    environment = {**os.environ, "PATH": f"{GENERATOR.parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(document),
            "--output-path",
            str(tmp_path / PACKAGE),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]
        shutil.rmtree(tmp_path / PACKAGE, ignore_errors=True)


class _Operations:
    """The generated modules of one tag, by operation name."""

    def __init__(self, modules: dict[str, Any]) -> None:
        self.__dict__.update(modules)


def _operations(tag: str, *names: str) -> Any:
    return _Operations(
        {name: importlib.import_module(f"{PACKAGE}.api.{tag}.{name}") for name in names}
    )


def test_typed_calls_provision_read_list_and_register_a_webhook(
    generated: Any, live_server: str, tenant: TenantFixture
) -> None:
    models = importlib.import_module(f"{PACKAGE}.models")
    api = _operations("applications", "create_application", "get_application", "list_applications")
    webhooks = _operations("webhooks", "create_webhook_endpoint", "list_webhook_endpoints")
    sessions = _operations("login_sessions", "create_login_session")
    client = generated.AuthenticatedClient(base_url=live_server, token=tenant.api_key)

    created = api.create_application.sync(
        client=client,
        body=models.ProvisionBody(email="typed@example.test", external_ref="crm-1"),
    )
    assert isinstance(created, models.Application), created
    assert created.client_id.startswith("app_")
    assert created.status == "pending"
    assert created.external_ref == "crm-1"
    assert [member.email for member in created.members] == ["typed@example.test"]

    detailed = api.create_application.sync_detailed(
        client=client,
        body=models.ProvisionBody(email="typed@example.test", external_ref="crm-1"),
    )
    assert detailed.status_code == 200  # the repeat answers the existing application
    assert isinstance(detailed.parsed, models.Application)
    assert detailed.parsed.client_id == created.client_id

    read = api.get_application.sync(client_id=created.client_id, client=client)
    assert isinstance(read, models.Application)
    assert read.client_id == created.client_id

    page = api.list_applications.sync(client=client, limit=10)
    assert isinstance(page, models.ApplicationPage)
    assert [summary.client_id for summary in page.data] == [created.client_id]
    assert isinstance(page.data[0], models.ApplicationSummary)
    assert page.has_more is False

    link = sessions.create_login_session.sync(
        client=client,
        body=models.LoginSessionBody(email="typed@example.test", external_ref="crm-1"),
    )
    assert type(link).__name__ == "LoginSession"  # the link is a credential: never printed
    client_id = link.client_id
    assert client_id == created.client_id

    endpoint = webhooks.create_webhook_endpoint.sync(
        client=client,
        body=models.CreateWebhookBody(url="http://127.0.0.1:9/hooks", events=["*"]),
    )
    assert isinstance(endpoint, models.CreatedWebhookEndpoint), endpoint
    assert endpoint.secret.startswith("whsec_")
    assert endpoint.id.startswith("we_")
    listed = webhooks.list_webhook_endpoints.sync(client=client)
    assert isinstance(listed, models.WebhookEndpointList)
    assert [item.id for item in listed.data] == [endpoint.id]

    missing = api.get_application.sync(client_id="app_missing", client=client)
    assert isinstance(missing, models.Error)
    assert missing.error.code == "not-found"
