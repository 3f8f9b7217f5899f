"""The container image, built and run here (docs/operations.md, "Containers").

The container tests build the Containerfile on a base image made from Debian's packages
(debootstrap; kept as localhost/gatehouse-base:bookworm for the next run), then run
`migrate`, `serve`, `staff create` and `worker` containers from it against this machine's
PostgreSQL (a fresh database) and Redis: a tenant is provisioned through the staff API, a
worker container delivers a signed webhook to a receiver on the host, a worker is stopped
while a delivery is in flight, and `serve` is stopped. They run once per CI run, in the
PostgreSQL stage: they skip without GATEHOUSE_TEST_DATABASE_URL, and where podman, runc or
debootstrap are missing. The quick tests first check compose.yaml and the build context on
every run.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.packaging.conftest import ROOT
from tests.packaging.podman import Podman
from tests.support.leaks import EXTERNAL_LINES, remember
from tests.support.ports import free_port
from tests.webhooks.receiver import Received, Receiver, running_receiver

POSTGRES_URL = os.environ.get("GATEHOUSE_TEST_DATABASE_URL", "")
REDIS_URL = os.environ.get("GATEHOUSE_TEST_REDIS_URL", "")
OLD_KEY = secrets.token_urlsafe(48)
CONTAINER_UID = "10001"


# --- quick checks, every run ------------------------------------------------------------------


def load_compose() -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "compose.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_compose_file_describes_the_stack() -> None:
    compose = load_compose()
    services = compose["services"]
    assert {"postgres", "redis", "migrate", "serve", "worker"} <= set(services)
    gatehouse = ("migrate", "serve", "worker")
    images = {services[name]["image"] for name in gatehouse}
    assert len(images) == 1, "one image for every Gatehouse service"
    assert services["migrate"]["command"] == ["migrate"]
    assert services["migrate"]["build"]["dockerfile"] == "Containerfile"
    # The s3:// store is a build argument away (docs/operations.md, "Containers").
    assert "EXTRAS" in services["migrate"]["build"]["args"]
    assert services["migrate"]["restart"] == "no"
    serve = services["serve"]
    assert serve["command"][0] == "serve"
    assert "--no-worker" in serve["command"]
    assert "--workers" in serve["command"]
    assert serve["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    worker = services["worker"]
    assert worker["command"] == ["worker"]
    assert worker["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert worker["healthcheck"] == {"disable": True}
    for name in gatehouse:
        service = services[name]
        env = service["environment"]
        assert env["GATEHOUSE_DATABASE_URL"].startswith("postgresql://")
        assert env["GATEHOUSE_REDIS_URL"].startswith("redis://")
        assert env["GATEHOUSE_DOCUMENT_STORE"] == "file:///var/lib/gatehouse/documents"
        assert "GATEHOUSE_SECRET_KEY" not in env, "the key comes from a secret, not the file"
        assert service["secrets"] == ["gatehouse_secret_key", "gatehouse_previous_secret_keys"]
        assert "/run/secrets/gatehouse_secret_key" in " ".join(service["entrypoint"])
        assert any(v.endswith(":/var/lib/gatehouse") for v in service["volumes"])
    assert "file" in compose["secrets"]["gatehouse_secret_key"]
    assert "file" in compose["secrets"]["gatehouse_previous_secret_keys"]
    for name in ("postgres", "redis"):
        assert "healthcheck" in services[name]


def test_compose_config_is_accepted_by_podman_compose(tmp_path: Path) -> None:
    tool = shutil.which("podman-compose") or shutil.which(
        "podman-compose", path=str(Path(sys.executable).parent)
    )
    if tool is None or shutil.which("podman") is None:
        pytest.skip("podman-compose is not installed: compose.yaml was checked with PyYAML only")
    # A copy beside a throwaway secret file, so the check needs nothing from the work tree.
    shutil.copy(ROOT / "compose.yaml", tmp_path / "compose.yaml")
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "gatehouse_secret_key").write_text("not-a-real-key\n")
    (tmp_path / "secrets" / "gatehouse_previous_secret_keys").write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GATEHOUSE_", "POSTGRES_"))}
    done = subprocess.run(
        [tool, "-f", "compose.yaml", "config"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    resolved = yaml.safe_load(done.stdout)
    assert resolved["services"]["serve"]["command"][-1] == "--no-worker"


def test_build_context_sends_only_what_the_wheel_needs() -> None:
    ignore = (ROOT / ".containerignore").read_text()
    assert (ROOT / ".dockerignore").read_text() == ignore
    rules = [line.strip() for line in ignore.splitlines() if line.strip() and line[0] != "#"]
    assert rules[0] == "*", "an allow-list: everything is left out unless named"
    assert {"!pyproject.toml", "!README.md", "!src"} <= set(rules)
    containerfile = (ROOT / "Containerfile").read_text()
    assert "ARG BASE_IMAGE=" in containerfile
    assert containerfile.count('ARG EXTRAS=""') == 2, "both stages read EXTRAS; none by default"
    assert "ARG COMPILE_BYTECODE=0" in containerfile
    assert 'ENTRYPOINT ["gatehouse"]' in containerfile
    assert "STOPSIGNAL SIGTERM" in containerfile
    assert "HEALTHCHECK" in containerfile


# --- the image (tests/packaging/conftest.py builds it), run ---------------------------------


@pytest.fixture(scope="module")
def container_db() -> Iterator[str]:
    """A fresh PostgreSQL database beside the one named, left for `migrate` to fill."""
    import asyncpg
    from sqlalchemy.engine import make_url

    named = make_url(POSTGRES_URL)
    name = f"gh_container_{secrets.token_hex(4)}"
    admin = named.set(drivername="postgresql").render_as_string(hide_password=False)

    async def execute(sql: str) -> None:
        conn = await asyncpg.connect(admin)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(execute(f'CREATE DATABASE "{name}"'))
    try:
        yield named.set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def query(container_db: str, sql: str, *args: object) -> list[Any]:
    import asyncpg

    conn = await asyncpg.connect(container_db.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        return list(await conn.fetch(sql, *args))
    finally:
        await conn.close()


class Containers:
    """Containers this module starts, all removed at the end, their logs kept for the leak check."""

    def __init__(self, podman: Podman, image: str) -> None:
        self.podman = podman
        self.image = image
        self.prefix = f"gatehouse-test-{secrets.token_hex(3)}"
        self.names: list[str] = []

    def _args(self, env: dict[str, str], name: str, health: bool) -> list[str]:
        full = f"{self.prefix}-{name}"
        self.names.append(full)
        args = ["--name", full, "--network", "host"]
        if not health:
            args.append("--no-healthcheck")
        for key, value in env.items():
            args += ["--env", f"{key}={value}"]
        return args

    def once(
        self, env: dict[str, str], name: str, *command: str
    ) -> subprocess.CompletedProcess[str]:
        """Run a command to completion in a new container (removed when done)."""
        args = self._args(env, name, health=False)
        self.names.remove(args[1])
        done = self.podman.run(["run", "--rm", *args, self.image, *command], check=False)
        EXTERNAL_LINES.extend(done.stderr.splitlines())
        return done

    def start(
        self,
        env: dict[str, str],
        name: str,
        *command: str,
        extra: tuple[str, ...] = (),
        health: bool = False,
    ) -> str:
        """Start a detached container; its name."""
        args = self._args(env, name, health)
        self.podman.run(["run", "--detach", *args, *extra, self.image, *command])
        return args[1]

    def logs(self, name: str) -> list[str]:
        done = self.podman.run(["logs", name], check=False)
        return (done.stdout + done.stderr).splitlines()

    def state(self, name: str) -> dict[str, Any]:
        return dict(json.loads(self.podman.run(["inspect", name]).stdout)[0]["State"])

    def remove_all(self) -> None:
        for name in self.names:
            EXTERNAL_LINES.extend(self.logs(name))
            self.podman.run(["rm", "--force", "--time", "0", name], check=False)


def wait_healthy(base: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{base}/healthz did not answer 200 within {timeout} s")
        time.sleep(0.5)


def compose_entrypoint() -> list[str]:
    """The worker's entrypoint in compose.yaml, with compose's `$$` unescaped."""
    entrypoint = load_compose()["services"]["worker"]["entrypoint"]
    return [part.replace("$$", "$") for part in entrypoint]


def event_type(item: Received) -> str:
    return item.headers.get("gatehouse-event-type", "")


def client_of(item: Received) -> str | None:
    try:
        return str(item.json()["data"]["clientId"])
    except (ValueError, KeyError, TypeError):
        return None


class Stack:
    """`migrate` run, `serve` up, a tenant with an intake, a key and a webhook endpoint."""

    def __init__(
        self, containers: Containers, env: dict[str, str], base: str, secrets_dir: Path
    ) -> None:
        self.containers = containers
        self.env = env
        self.base = base
        # The key ring as compose mounts it: one file per secret under /run/secrets.
        self.secrets_dir = secrets_dir
        self.serve = ""
        self.staff: dict[str, str] = {}
        self.api: dict[str, str] = {}
        self.tenant_id = ""
        self.receiver = Receiver()
        # Answers to deliveries about these applications wait a while (see the shutdown test).
        self.slow_clients: set[str] = set()
        self.in_flight = threading.Event()

    def respond(self, item: Received) -> int:
        if client_of(item) in self.slow_clients and event_type(item).endswith("decision.hold"):
            self.in_flight.set()
            time.sleep(3)  # the answer comes while the worker is being stopped
        return 200

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        answer = httpx.post(self.base + path, json=body, headers=headers, timeout=30)
        assert answer.status_code in (200, 201), (path, answer.status_code, answer.text)
        return dict(answer.json())

    def new_application(self) -> str:
        return str(
            self.post(
                "/v1/applications",
                {"email": f"owner-{secrets.token_hex(4)}@example.test"},
                self.api,
            )["clientId"]
        )

    def decide(self, client_id: str, action: str) -> None:
        self.post(f"/staff/v1/applications/{client_id}/decisions", {"action": action}, self.staff)

    def holds(self, client_id: str, requests: list[Received] | None = None) -> list[Received]:
        """Deliveries of `application.decision.hold` about `client_id` (from `requests`, the
        list a `wait_until` predicate gets, which must not take the receiver's lock again)."""
        seen = self.receiver.snapshot() if requests is None else requests
        return [
            r for r in seen if event_type(r).endswith("decision.hold") and client_of(r) == client_id
        ]

    def start_worker(self, name: str) -> str:
        """A `worker` container whose key ring is read from secret files by compose's
        entrypoint (the environment holds no key)."""
        env = {k: v for k, v in self.env.items() if k != "GATEHOUSE_SECRET_KEY"}
        return self.containers.start(
            env,
            name,
            "worker",
            extra=(
                "--volume",
                f"{self.secrets_dir}:/run/secrets:ro",
                "--entrypoint",
                json.dumps(compose_entrypoint()),
            ),
        )


@pytest.fixture(scope="module")
def stack(
    podman: Podman,
    image: str,
    container_db: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Stack]:
    containers = Containers(podman, image)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    key = secrets.token_urlsafe(48)
    env = {
        "GATEHOUSE_DATABASE_URL": container_db,
        "GATEHOUSE_SECRET_KEY": key,
        "GATEHOUSE_PUBLIC_URL": base,
        "GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_URLS": "true",
    }
    if REDIS_URL:
        env["GATEHOUSE_REDIS_URL"] = REDIS_URL
    secrets_dir = tmp_path_factory.mktemp("secrets")
    (secrets_dir / "gatehouse_secret_key").write_text(key + "\n")
    # An older key of the ring (never used to seal here): it must reach the environment.
    (secrets_dir / "gatehouse_previous_secret_keys").write_text(OLD_KEY + "\n")
    for path in [secrets_dir, *secrets_dir.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # read by uid 10001 in the container
    made = Stack(containers, env, base, secrets_dir)
    try:
        # migrate, once, as compose's `migrate` service does.
        migrated = containers.once(env, "migrate", "migrate")
        assert migrated.returncode == 0, migrated.stderr
        assert "schema is up to date" in migrated.stderr
        # serve: two API processes, no workers, the image's own HEALTHCHECK.
        made.serve = containers.start(
            {**env, "GATEHOUSE_HEALTHCHECK_URL": base + "/healthz"},
            "serve",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "2",
            "--no-worker",
            health=True,
        )
        wait_healthy(base)
        # A super_admin from `staff create` in the image; the rest through the staff API.
        created = containers.once(
            env, "staff", "staff", "create", "--email", "ops@example.test", "--role", "super_admin"
        )
        assert created.returncode == 0, created.stderr
        token = json.loads(created.stdout)["token"]
        remember(token)
        made.staff = {"Authorization": f"Bearer {token}"}
        made.tenant_id = str(
            made.post("/staff/v1/tenants", {"name": "Container Ltd"}, made.staff)["tenantId"]
        )
        made.post(
            f"/staff/v1/tenants/{made.tenant_id}/intakes",
            {
                "name": "Business onboarding",
                "checklist": [
                    {
                        "key": "certificate",
                        "label": "Certificate",
                        "kind": "document",
                        "required": True,
                    }
                ],
            },
            made.staff,
        )
        api_key = str(
            made.post(
                f"/staff/v1/tenants/{made.tenant_id}/api-keys",
                {
                    "name": "container test",
                    "scopes": ["applications:write", "applications:read", "webhooks:manage"],
                },
                made.staff,
            )["apiKey"]
        )
        remember(api_key)
        made.api = {"Authorization": f"Bearer {api_key}"}
        made.receiver.expected_tenants = {made.tenant_id}
        made.receiver.respond = made.respond
        with running_receiver(made.receiver) as hooks:
            secret = str(
                made.post("/v1/webhooks", {"url": hooks.url, "events": ["*"]}, made.api)["secret"]
            )
            remember(secret)
            made.receiver.secrets = [secret]
            yield made
    finally:
        containers.remove_all()


@pytest.mark.slow
@pytest.mark.container
def test_image_runs_migrate_serve_staff_and_a_worker_that_delivers(
    podman: Podman, image: str, stack: Stack
) -> None:
    inspected = json.loads(podman.run(["image", "inspect", image]).stdout)[0]
    config = inspected["Config"]
    assert config["User"] == f"{CONTAINER_UID}:{CONTAINER_UID}"
    assert config["Entrypoint"] == ["gatehouse"]
    assert config["Cmd"][0] == "serve"
    assert config["StopSignal"] == "SIGTERM"
    healthcheck = inspected.get("Healthcheck") or config.get("Healthcheck") or {}
    assert "/healthz" in " ".join(healthcheck.get("Test", []))
    no_tools = podman.run(
        [
            "run",
            "--rm",
            "--network",
            "host",
            "--no-healthcheck",
            "--entrypoint",
            "/bin/sh",
            image,
            "-c",
            "command -v gcc cc c++ make strip ld pip || true",
        ],
    )
    assert no_tools.stdout.strip() == "", f"build tools in the final image: {no_tools.stdout}"

    # serve answered /healthz (the stack waited for it); so does the image's HEALTHCHECK.
    assert podman.run(["healthcheck", "run", stack.serve], check=False).returncode == 0
    uid = podman.run(["exec", stack.serve, "id", "-u"]).stdout.strip()
    assert uid == CONTAINER_UID
    assert uid != "0"

    worker = stack.start_worker("worker")
    assert podman.run(["exec", worker, "id", "-u"]).stdout.strip() == CONTAINER_UID
    # compose's entrypoint line exported the key ring from the secret files, then exec'd.
    # (Checked as booleans, so that a failure never prints a key.)
    environ = podman.run(["exec", worker, "cat", "/proc/1/environ"]).stdout.split("\0")
    has_key = f"GATEHOUSE_SECRET_KEY={stack.env['GATEHOUSE_SECRET_KEY']}" in environ
    has_previous = f"GATEHOUSE_PREVIOUS_SECRET_KEYS={OLD_KEY}," in environ
    assert has_key, "GATEHOUSE_SECRET_KEY was not exported from the secret file"
    assert has_previous, "GATEHOUSE_PREVIOUS_SECRET_KEYS was not exported from the secret file"
    comm = podman.run(["exec", worker, "cat", "/proc/1/cmdline"]).stdout.split("\0")
    assert comm[1:3] == ["/opt/gatehouse/bin/gatehouse", "worker"], comm
    client_id = stack.new_application()
    stack.decide(client_id, "hold")
    stack.receiver.wait_until(lambda got: len(stack.holds(client_id, got)) >= 1, timeout=30)
    [held] = stack.holds(client_id)
    assert held.verified, held.refusal
    assert held.refusal is None, held.refusal
    assert held.json()["tenantId"] == stack.tenant_id

    podman.run(["stop", "--time", "45", worker], timeout=120)
    assert stack.containers.state(worker)["ExitCode"] == 0
    assert not any("Traceback" in line for line in stack.containers.logs(worker))


@pytest.mark.slow
@pytest.mark.container
def test_worker_finishes_an_in_flight_delivery_on_sigterm(podman: Podman, stack: Stack) -> None:
    worker = stack.start_worker("worker-stop")
    client_id = stack.new_application()
    stack.slow_clients.add(client_id)
    stack.decide(client_id, "hold")
    assert stack.in_flight.wait(60), "the delivery never arrived"
    stopping = time.monotonic()
    podman.run(["stop", "--time", "45", worker], timeout=120)
    stop_seconds = time.monotonic() - stopping
    state = stack.containers.state(worker)
    assert state["ExitCode"] == 0, state
    assert stop_seconds < 40, f"the worker took {stop_seconds:.0f} s to stop"
    stack.receiver.wait_until(lambda got: len(stack.holds(client_id, got)) >= 1, timeout=10)
    event_id = stack.holds(client_id)[0].event_id
    rows = asyncio.run(
        query(
            stack.env["GATEHOUSE_DATABASE_URL"],
            "SELECT status, attempts, last_error FROM webhook_deliveries WHERE event_id = $1",
            event_id,
        )
    )
    outcome = [(r["status"], r["attempts"], r["last_error"]) for r in rows]
    assert outcome == [("succeeded", 1, None)], (
        f"the in-flight delivery was not finished and recorded before the worker exited: {outcome}"
    )


@pytest.mark.slow
@pytest.mark.container
def test_serve_stops_on_sigterm(podman: Podman, stack: Stack) -> None:
    stopping = time.monotonic()
    podman.run(["stop", "--time", "30", stack.serve], timeout=120)
    assert time.monotonic() - stopping < 25, "serve was killed, not stopped"
    state = stack.containers.state(stack.serve)
    assert state["ExitCode"] in (0, 143), state  # 143: uvicorn re-raises SIGTERM after its shutdown
    assert any("Finished server process" in line for line in stack.containers.logs(stack.serve))
