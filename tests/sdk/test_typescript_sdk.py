"""The TypeScript SDK (clients/typescript, npm package gatehouse-kyc-client), run from the suite:

- its types (src/generated/openapi.ts) are what openapi-typescript generates from this app's
  /openapi.json, so a route or schema change without regenerating them fails here;
- it builds (ESM, CommonJS and the examples, type-checked with `tsc`), its unit tests pass
  under `node --test`, and its public types accept and refuse what test/types.check.ts says;
- its live tests pass against a real `gatehouse serve` on a free port, with a staff token
  made by `gatehouse staff create` (they create their own tenant, key and receiver);
- `npm pack` makes a package of the built code and its types only, which installs and loads
  with both `import` and `require`.

The tools come from clients/typescript/node_modules (`npm ci`, run by scripts/bootstrap when npm
is there). Without node, npm or those tools these tests are SKIPPED and say so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gatehouse.app import create_app
from tests.conftest import make_settings
from tests.support.live import free_port
from tests.support.processes import clean_env, run, started

pytestmark = pytest.mark.slow

SDK = Path(__file__).resolve().parents[2] / "clients" / "typescript"
NODE = shutil.which("node")
NPM = shutil.which("npm")


def _tools_missing() -> str | None:
    if NODE is None or NPM is None:
        return "node or npm is not installed"
    if not (SDK / "node_modules" / "typescript").is_dir():
        return "clients/typescript/node_modules is missing (npm ci --prefix clients/typescript)"
    return None


MISSING = _tools_missing()
if MISSING is not None:
    pytest.skip(f"TYPESCRIPT SDK CHECKS SKIPPED: {MISSING}", allow_module_level=True)


def node(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    """Run node in the SDK's folder; fail with its output when it fails."""
    assert NODE is not None
    done = subprocess.run(
        [NODE, *args], cwd=SDK, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"node {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def npm(*args: str, cwd: Path = SDK, timeout: float = 600) -> str:
    assert NPM is not None
    done = subprocess.run(
        [NPM, *args, "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"npm {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def built() -> None:
    """dist/esm, dist/cjs and build/examples, compiled (and type-checked) by `tsc`."""
    node("scripts/build.mjs")


def served_document(tmp_path: Path) -> dict[str, Any]:
    """The document this app serves at /openapi.json."""
    app = create_app(make_settings(f"sqlite:///{tmp_path}/gatehouse.db"))
    with TestClient(app) as http:
        served = http.get("/openapi.json")
    assert served.status_code == 200
    document: dict[str, Any] = served.json()
    return document


def test_types_match_the_openapi_document(tmp_path: Path) -> None:
    document = tmp_path / "openapi.json"
    document.write_text(json.dumps(served_document(tmp_path)))
    out = node("scripts/generate.mjs", "--check", str(document))
    assert "matches" in out


def test_the_drift_check_fails_when_the_document_changes(tmp_path: Path) -> None:
    document = served_document(tmp_path)
    document["components"]["schemas"]["Application"]["properties"]["newField"] = {"type": "string"}
    changed = tmp_path / "openapi.json"
    changed.write_text(json.dumps(document))
    assert NODE is not None
    done = subprocess.run(
        [NODE, "scripts/generate.mjs", "--check", str(changed)],
        cwd=SDK,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert "differs from what /openapi.json generates" in done.stderr


def test_unit_tests_pass(built: None) -> None:
    files = sorted(
        str(path.relative_to(SDK))
        for pattern in ("*.test.mjs", "*.test.cjs")
        for path in (SDK / "test").glob(pattern)
        if path.name != "live.test.mjs"
    )
    assert len(files) >= 6, files
    out = node("--test", *files)
    assert "# fail 0" in out
    assert "# pass" in out


def test_public_types_hold(built: None) -> None:
    """test/types.check.ts compiles, and each of its `@ts-expect-error` lines is an error."""
    node("node_modules/typescript/bin/tsc", "-p", "tsconfig.typecheck.json")


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A real `gatehouse serve` (with its workers, which deliver webhooks) and a staff token."""
    env = clean_env(
        database_url=f"sqlite:///{tmp_path}/gatehouse.db",
        webhook_allow_private_urls="true",
        rate_limit_per_key="100000",
        rate_limit_per_ip="100000",
    )
    made = run(
        ["staff", "create", "--email", "sdk@example.test", "--role", "super_admin"], env, tmp_path
    )
    assert made.returncode == 0, made.stderr
    token = json.loads(made.stdout)["token"]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env["GATEHOUSE_PUBLIC_URL"] = base
    with started(["serve", "--host", "127.0.0.1", "--port", str(port)], env, tmp_path) as server:
        server.wait_healthy(base)
        yield base, token


def test_live_tests_pass_against_a_real_server(built: None, live_server: tuple[str, str]) -> None:
    base, token = live_server
    env = {
        **os.environ,
        "GATEHOUSE_TEST_URL": base,
        "GATEHOUSE_TEST_STAFF_TOKEN": token,
    }
    out = node("--test", "test/live.test.mjs", env=env)
    assert "# fail 0" in out
    assert "# skipped 0" in out  # they ran: the variables were seen
    assert "# pass 7" in out, out


def test_the_package_holds_the_built_code_and_types_only(built: None, tmp_path: Path) -> None:
    npm("pack", "--ignore-scripts", "--pack-destination", str(tmp_path))
    (tarball,) = tmp_path.glob("gatehouse-kyc-client-*.tgz")
    with tarfile.open(tarball) as archive:
        names = {name.removeprefix("package/") for name in archive.getnames()}
    for wanted in (
        "package.json",
        "README.md",
        "CHANGELOG.md",
        "dist/esm/index.js",
        "dist/esm/index.d.ts",
        "dist/esm/webhooks/verify.js",
        "dist/esm/generated/openapi.d.ts",
        "dist/cjs/index.js",
        "dist/cjs/index.d.ts",
        "dist/cjs/package.json",
    ):
        assert wanted in names, wanted
    assert all(n.startswith("dist/") or "/" not in n for n in names), names
    for unwanted in ("test", "fixtures", "examples", "src/", "scripts", "node_modules", "build/"):
        assert not any(unwanted in n for n in names), (unwanted, names)

    # Installed from the tarball into a fresh project, it loads with import and require.
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text('{"name": "consumer", "private": true}')
    npm("install", "--offline", str(tarball), cwd=project)
    assert NODE is not None
    for source in (
        "import { Gatehouse, VERSION } from 'gatehouse-kyc-client';"
        " console.log(typeof Gatehouse, VERSION)",
        "const { Gatehouse, VERSION } = require('gatehouse-kyc-client');"
        " console.log(typeof Gatehouse, VERSION)",
    ):
        kind = "module" if source.startswith("import") else "commonjs"
        done = subprocess.run(
            [NODE, "--input-type", kind, "-e", source],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        version = json.loads((SDK / "package.json").read_text())["version"]
        assert done.stdout.split() == ["function", version]
