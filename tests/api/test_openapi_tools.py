"""/openapi.json under the tools integrators run on it (docs/api-reference.md, "Linters and
generators"): Redocly's and Spectral's recommended rules (no error; the one kept warning is
Spectral's `info-contact`, justified there), and openapi-typescript with its default options,
whose types `tsc --strict` compiles and in which every optional request field is optional.

The tools come from tests/openapi_tools (package.json and its lock; `npm ci --prefix
tests/openapi_tools`, run by scripts/bootstrap when npm is there); without them these tests
are skipped and say so. SQLite by default, PostgreSQL with GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

TOOLS = Path(__file__).resolve().parents[1] / "openapi_tools"
BIN = TOOLS / "node_modules" / ".bin"
KEPT_SPECTRAL_WARNINGS = {"info-contact"}


def tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.skip(
            f"{name} is not installed: the OpenAPI tool checks are SKIPPED "
            "(npm ci --prefix tests/openapi_tools)"
        )
    return str(path)


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=TOOLS, capture_output=True, text=True, timeout=300)


@pytest.fixture
async def document_file(client: httpx.AsyncClient, tmp_path: Path) -> Path:
    answer = await client.get("/openapi.json")
    assert answer.status_code == 200
    path = tmp_path / "openapi.json"
    path.write_bytes(answer.content)
    return path


def test_redocly_recommended_rules_find_nothing(document_file: Path) -> None:
    done = run([tool("redocly"), "lint", str(document_file), "--format=json"])
    report = json.loads(done.stdout)
    problems = [(p["ruleId"], p["message"]) for p in report["problems"]]
    assert report["totals"]["errors"] == 0, problems
    assert report["totals"]["warnings"] == 0, problems


def test_spectral_recommended_rules_find_nothing_but_the_kept_warning(
    document_file: Path,
) -> None:
    done = run(
        [tool("spectral"), "lint", str(document_file), "--ruleset", ".spectral.yaml", "-f", "json"]
    )
    found: list[dict[str, Any]] = json.loads(done.stdout or "[]")
    problems = {(r["code"], r["severity"], ".".join(map(str, r["path"]))) for r in found}
    assert not [p for p in problems if p[1] == 0], problems  # severity 0: error
    assert {code for code, _, _ in problems} <= KEPT_SPECTRAL_WARNINGS, problems


def _optional_fields(document: dict[str, Any]) -> dict[str, list[str]]:
    """Request body schemas (components) and their optional fields."""
    schemas = document["components"]["schemas"]
    names = set()
    for item in document["paths"].values():
        for operation in item.values():
            if not isinstance(operation, dict) or "requestBody" not in operation:
                continue
            for media in operation["requestBody"]["content"].values():
                ref = media.get("schema", {}).get("$ref", "")
                if ref:
                    names.add(ref.rsplit("/", 1)[1])
    optional = {}
    for name in sorted(names):
        properties = schemas[name].get("properties", {})
        left = sorted(set(properties) - set(schemas[name].get("required", [])))
        if left:
            optional[name] = left
    return optional


CHECK = """import type {{ components }} from "./api";

type Schemas = components["schemas"];
type OptionalKeys<T> = {{ [K in keyof T]-?: {{}} extends Pick<T, K> ? K : never }}[keyof T];
type IsOptional<T, K extends keyof T> = K extends OptionalKeys<T> ? true : false;
const optional: true[] = [
{checks}
];
export default optional;
"""


def test_openapi_typescript_types_compile_and_keep_optional_fields_optional(
    document_file: Path, tmp_path: Path
) -> None:
    generated = run(
        [tool("openapi-typescript"), str(document_file), "-o", str(tmp_path / "api.ts")]
    )
    assert generated.returncode == 0, generated.stderr
    optional = _optional_fields(json.loads(document_file.read_text()))
    assert "ProvisionBody" in optional  # the body integrators meet first
    checks = ",\n".join(
        f'  ((): IsOptional<Schemas["{name}"], "{field}"> => true)()'
        for name, fields in optional.items()
        for field in fields
    )
    (tmp_path / "check.ts").write_text(CHECK.format(checks=checks))
    compiled = run(
        [
            tool("tsc"),
            "--noEmit",
            "--strict",
            "--target",
            "es2020",
            "--module",
            "es2020",
            "--moduleResolution",
            "bundler",
            str(tmp_path / "api.ts"),
            str(tmp_path / "check.ts"),
        ]
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
