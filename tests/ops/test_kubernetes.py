"""deploy/kubernetes (docs/kubernetes.md): each overlay renders with `kubectl kustomize`
(Debian's kubernetes-client; GATEHOUSE_KUBECTL names another), every object it renders is
valid against the Kubernetes schemas (kubernetes-validate), and the rules the page promises
hold: non-root, read-only root filesystems, resource requests, the probes, the key ring from
Secrets, and a connection budget within PostgreSQL's default."""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
OVERLAYS = ROOT / "deploy" / "kubernetes" / "overlays"
# The Kubernetes version the objects are checked against (policy/v1 needs 1.21 or newer).
KUBERNETES_VERSION = "1.30"
# PostgreSQL's default max_connections, less its 3 reserved for superusers.
POSTGRES_DEFAULT_BUDGET = 100 - 3


def kubectl() -> str:
    found = os.environ.get("GATEHOUSE_KUBECTL") or shutil.which("kubectl")
    if not found:
        pytest.skip(
            "KUBERNETES TEST SKIPPED: no kubectl (Debian: apt-get install kubernetes-client)"
        )
    return found


@cache
def rendered(overlay: str) -> list[dict[str, Any]]:
    done = subprocess.run(
        [kubectl(), "kustomize", str(OVERLAYS / overlay)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return [item for item in yaml.safe_load_all(done.stdout) if item]


def of_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def pod_specs(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        o["metadata"]["name"]: o["spec"]["template"]["spec"]
        for o in objects
        if o["kind"] in ("Deployment", "Job")
    }


def env_of(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in container.get("env", [])}


def settings_of(objects: list[dict[str, Any]]) -> dict[str, str]:
    (config,) = of_kind(objects, "ConfigMap").values()
    return dict(config["data"])


def test_the_overlays_are_the_two_documented() -> None:
    assert sorted(p.name for p in OVERLAYS.iterdir()) == ["postgresql-redis", "sqlite-single-pod"]


@pytest.mark.parametrize("overlay", ["sqlite-single-pod", "postgresql-redis"])
def test_every_object_is_valid_against_the_kubernetes_schemas(overlay: str) -> None:
    objects = rendered(overlay)
    assert objects
    for item in objects:
        kubernetes_validate.validate(item, KUBERNETES_VERSION, strict=True)


def test_the_validation_would_catch_a_bad_object() -> None:
    api = of_kind(rendered("postgresql-redis"), "Deployment")["gatehouse-api"]
    broken = yaml.safe_load(yaml.safe_dump(api))
    broken["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize("overlay", ["sqlite-single-pod", "postgresql-redis"])
def test_every_gatehouse_pod_is_locked_down_and_asks_for_resources(overlay: str) -> None:
    for name, spec in pod_specs(rendered(overlay)).items():
        assert spec["securityContext"]["runAsNonRoot"] is True, name
        assert spec["automountServiceAccountToken"] is False, name
        for container in spec["containers"]:
            security = container["securityContext"]
            assert security["readOnlyRootFilesystem"] is True, name
            assert security["allowPrivilegeEscalation"] is False, name
            assert security["capabilities"]["drop"] == ["ALL"], name
            assert {"cpu", "memory"} <= set(container["resources"]["requests"]), name


@pytest.mark.parametrize("overlay", ["sqlite-single-pod", "postgresql-redis"])
def test_the_api_is_ready_on_readyz_and_alive_on_healthz(overlay: str) -> None:
    spec = pod_specs(rendered(overlay))["gatehouse-api"]
    (container,) = spec["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["image"] == "localhost/gatehouse:latest"
    (service,) = [
        s
        for s in of_kind(rendered(overlay), "Service").values()
        if s["metadata"]["name"] == "gatehouse"
    ]
    assert service["spec"]["ports"][0]["targetPort"] == "http"


@pytest.mark.parametrize("overlay", ["sqlite-single-pod", "postgresql-redis"])
def test_the_key_ring_comes_from_a_secret_never_from_the_repository(overlay: str) -> None:
    objects = rendered(overlay)
    assert of_kind(objects, "Secret") == {}
    for name, spec in pod_specs(objects).items():
        for container in spec["containers"]:
            if container["image"].startswith("docker.io/library/redis"):
                continue
            key = env_of(container)["GATEHOUSE_SECRET_KEY"]["valueFrom"]["secretKeyRef"]
            assert key == {"name": "gatehouse-keys", "key": "secret-key"}, name
    assert not any("SECRET_KEY" in key for key in settings_of(objects))


def test_the_sqlite_overlay_is_one_pod_serving_with_its_workers() -> None:
    objects = rendered("sqlite-single-pod")
    deployments = of_kind(objects, "Deployment")
    assert list(deployments) == ["gatehouse-api"]
    api = deployments["gatehouse-api"]
    assert api["spec"]["replicas"] == 1
    assert api["spec"]["strategy"]["type"] == "Recreate"
    (container,) = api["spec"]["template"]["spec"]["containers"]
    assert "--no-worker" not in container["args"]
    assert of_kind(objects, "Job") == {}
    assert settings_of(objects)["GATEHOUSE_DATABASE_URL"].startswith("sqlite:////var/lib/")
    volumes = {v["name"]: v for v in api["spec"]["template"]["spec"]["volumes"]}
    assert volumes["data"] == {
        "name": "data",
        "persistentVolumeClaim": {"claimName": "gatehouse-data"},
    }
    assert "gatehouse-data" in of_kind(objects, "PersistentVolumeClaim")


def test_the_postgresql_overlay_scales_out_within_the_default_connection_budget() -> None:
    objects = rendered("postgresql-redis")
    deployments = of_kind(objects, "Deployment")
    assert set(deployments) == {"gatehouse-api", "gatehouse-worker", "gatehouse-redis"}
    assert set(of_kind(objects, "Job")) == {"gatehouse-migrate"}
    assert set(of_kind(objects, "PodDisruptionBudget")) == {"gatehouse-api", "gatehouse-worker"}
    settings = settings_of(objects)
    assert settings["GATEHOUSE_REDIS_URL"] == "redis://gatehouse-redis:6379/0"
    pool = int(settings["GATEHOUSE_DB_POOL_SIZE"])
    processes = listeners = 0
    for name in ("gatehouse-api", "gatehouse-worker"):
        deployment = deployments[name]
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        url = env_of(container)["GATEHOUSE_DATABASE_URL"]["valueFrom"]["secretKeyRef"]
        assert url == {"name": "gatehouse-database", "key": "url"}
        args = container["args"]
        per_pod = int(args[args.index("--workers") + 1]) if "--workers" in args else 1
        processes += deployment["spec"]["replicas"] * per_pod
        # Each process LISTENs on one more (credentials in API processes, wake-ups in workers).
        listeners += deployment["spec"]["replicas"] * per_pod
    # docs/operations.md, "Connections": processes x pool size, the LISTEN connections, and
    # the migrate Job's one.
    assert listeners == 4
    assert processes * pool + listeners + 1 <= POSTGRES_DEFAULT_BUDGET
