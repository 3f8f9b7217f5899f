"""The container image, built once per test run (docs/operations.md, "Containers").

`podman` skips without PostgreSQL (the image is built and run in the PostgreSQL stage only),
podman, runc, debootstrap or root; `built` makes the Debian base when it is missing, builds
the Containerfile on it with its default build arguments and measures the image.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.packaging.podman import BASE_IMAGE, Podman, ensure_base_image, missing_tools

ROOT = Path(__file__).resolve().parents[2]
IMAGE = "localhost/gatehouse:test"
POSTGRES_URL = os.environ.get("GATEHOUSE_TEST_DATABASE_URL", "")


@dataclass(frozen=True)
class Built:
    image: str
    size: int  # bytes, as `podman image inspect` counts them (uncompressed layers)
    build_seconds: float
    base_made_seconds: float | None  # None: the base image of an earlier run was reused


@pytest.fixture(scope="session")
def podman(tmp_path_factory: pytest.TempPathFactory) -> Podman:
    if not POSTGRES_URL.startswith(("postgresql://", "postgres://")):
        pytest.skip(
            "CONTAINER TEST SKIPPED: it runs once per CI run, in the PostgreSQL stage "
            "(set GATEHOUSE_TEST_DATABASE_URL=postgresql://…)"
        )
    missing = missing_tools()
    if missing:
        pytest.skip(
            f"CONTAINER TEST SKIPPED: {', '.join(missing)} missing "
            "(apt-get install -y podman runc debootstrap; .ci/run does it)"
        )
    if os.geteuid() != 0:
        pytest.skip("CONTAINER TEST SKIPPED: debootstrap and podman with runc need root here")
    return Podman(tmp_path_factory.mktemp("podman"))


def build_args(image: str, *build_args: str) -> list[str]:
    """`podman build` of the Containerfile on BASE_IMAGE, tagged `image`."""
    args = [
        "build",
        "--isolation",
        "chroot",
        "--network",
        "host",
        "--format",
        "docker",  # HEALTHCHECK is part of the Docker image format only
        "--build-arg",
        f"BASE_IMAGE={BASE_IMAGE}",
        "--tag",
        image,
        "--file",
        str(ROOT / "Containerfile"),
    ]
    for build_arg in build_args:
        args += ["--build-arg", build_arg]
    # pip in the build trusts what pip here trusts (a TLS-intercepting proxy's CA, say).
    bundle = os.environ.get("PIP_CERT") or os.environ.get("SSL_CERT_FILE")
    if bundle and Path(bundle).is_file():
        args += [
            "--volume",
            f"{bundle}:/run/host-ca.crt:ro",
            "--build-arg",
            "PIP_CERT=/run/host-ca.crt",
        ]
    if os.environ.get("PIP_INDEX_URL"):
        args += ["--build-arg", f"PIP_INDEX_URL={os.environ['PIP_INDEX_URL']}"]
    return [*args, str(ROOT)]


@pytest.fixture(scope="session")
def built(podman: Podman, tmp_path_factory: pytest.TempPathFactory) -> Built:
    logs = tmp_path_factory.mktemp("build")
    made, base_seconds = ensure_base_image(podman, logs / "debootstrap.log")
    previous = podman.run(["image", "inspect", "--format", "{{.Id}}", IMAGE], check=False)
    started = time.monotonic()
    done = podman.run(build_args(IMAGE), timeout=1800, check=False)
    build_seconds = time.monotonic() - started
    (logs / "build.log").write_text(done.stdout + done.stderr)
    assert done.returncode == 0, f"podman build failed:\n{(done.stdout + done.stderr)[-5000:]}"
    current = podman.run(["image", "inspect", "--format", "{{.Id}}", IMAGE]).stdout.strip()
    if previous.returncode == 0 and previous.stdout.strip() != current:
        # The image of the previous run is untagged now: remove it (its layers may stay).
        podman.run(["rmi", previous.stdout.strip()], check=False)
    size = int(podman.run(["image", "inspect", "--format", "{{.Size}}", IMAGE]).stdout)
    return Built(IMAGE, size, build_seconds, base_seconds if made else None)


@pytest.fixture(scope="session")
def image(built: Built) -> str:
    return built.image


def report(config: pytest.Config, line: str) -> None:
    """A line in the test run's output, captured or not."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        print(line)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line(line)
