"""Schemathesis against /openapi.json, in-process (issue 2).

Every documented operation (the set grows as areas land) is called with
generated data and the right credential for its surface: no answer may be a
5xx, and no answer may break the schema the document gives for its status.
Positive data for every operation, invalid data (negative mode) for those with a
body or query parameters. Bounded: a few examples per operation.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from tests.conftest import make_settings
from tests.support.factories import StaffFixture, TenantFixture

MAX_EXAMPLES = 5


def credentials_for(path: str, tenant: TenantFixture, staff: StaffFixture) -> dict[str, str]:
    if path == "/v1" or path.startswith("/v1/"):
        return tenant.headers
    if path.startswith("/staff/v1/"):
        return staff.headers
    return {}


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_server_error_and_no_schema_violation(
    database_url: str, tenant: TenantFixture, staff: StaffFixture, mode: GenerationMode
) -> None:
    # The app gets its own runtime: schemathesis serves it from its own event-loop thread.
    app_settings = make_settings(database_url, rate_limit_per_key=1_000_000)
    app = create_app(app_settings, Runtime.build(app_settings))
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert any(op.path.startswith("/staff/v1/") for op in operations)
    failures: list[str] = []
    for operation in operations:
        if mode == GenerationMode.NEGATIVE and not (len(operation.body) or len(operation.query)):
            continue  # nothing to negate: string path parameters accept any string

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def check(case: Any) -> None:
            case.call_and_validate(
                headers=credentials_for(case.path, tenant, staff),
                checks=[not_a_server_error, response_schema_conformance],
            )

        try:
            check()
        except Unsatisfiable:
            continue  # no invalid input can be expressed for this operation
        except Exception as exc:  # collect every operation's failure, then report all
            failures.append(f"{operation.method.upper()} {operation.path}: {exc}"[:2000])
    assert not failures, "\n\n".join(failures)
