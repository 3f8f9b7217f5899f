"""A database error never writes the values of its statement to the logs: every engine
hides its parameters, and the log formatter drops the driver's own message, which can
quote values (PostgreSQL's DETAIL: Key (email)=(…)). The statement itself is kept
(docs/platform.md, "Operations"). SQLite by default, PostgreSQL with
GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import io
import json
import logging
import secrets
from collections.abc import Callable

import httpx
import pytest
from fastapi import APIRouter
from pydantic import BaseModel
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError

from gatehouse.app import create_app
from gatehouse.logs import json_handler
from gatehouse.runtime import Runtime
from gatehouse.storage.db import null_pool_engine
from gatehouse.storage.tables.core import StaffMember

BROKEN = "SELECT id FROM staff_members WHERE email = :email AND no_such_column = 1"


def an_email() -> str:
    return f"leaky.applicant.{secrets.token_hex(6)}@example.test"


async def test_an_unhandled_database_error_logs_the_statement_without_values(
    runtime: Runtime, captured_logs: list[str]
) -> None:
    email = an_email()
    router = APIRouter()

    @router.post("/v1/robustness/duplicate")
    async def duplicate() -> None:
        # Two staff members with one email: the unique constraint fails at the flush;
        # PostgreSQL's error names the duplicate key's value.
        async with runtime.db.write() as session:
            for n in range(2):
                session.add(
                    StaffMember(
                        id=f"stf_dup{n}{secrets.token_hex(4)}",
                        email=email,
                        role="analyst",
                        status="active",
                        created_at=runtime.now(),
                    )
                )

    @router.post("/v1/robustness/broken")
    async def broken() -> None:
        async with runtime.db.read() as session:
            await session.execute(text(BROKEN), {"email": email})

    app = create_app(runtime.settings, runtime)
    app.include_router(router)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    start = len(captured_logs)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        for path in ("/v1/robustness/duplicate", "/v1/robustness/broken"):
            response = await client.post(path)
            assert response.status_code == 500
            assert email not in response.text
    lines = captured_logs[start:]
    errors = [json.loads(line) for line in lines if '"unhandled error"' in line]
    assert len(errors) == 2
    assert all("exception" in entry for entry in errors)
    # The statements are there, to diagnose; their values are not.
    assert "staff_members" in errors[0]["exception"]
    assert "no_such_column" in errors[1]["exception"]
    assert [line for line in lines if email in line] == []


def _sync_error(engine: Engine, email: str) -> str:
    with engine.connect() as connection:
        try:
            connection.execute(text(BROKEN), {"email": email})
        except DBAPIError as exc:
            return str(exc)
    raise AssertionError("the statement did not fail")


@pytest.mark.parametrize("engine_of", ["write", "read", "fetch", "null_pool"])
async def test_every_engine_hides_parameters(runtime: Runtime, engine_of: str) -> None:
    email = an_email()
    db = runtime.db
    engines: dict[str, Callable[[], object]] = {
        "write": lambda: db.write_engine,
        "read": lambda: db.read_engine,
        "null_pool": lambda: null_pool_engine(runtime.settings.database_url),
    }
    if engine_of == "fetch":
        with pytest.raises(DBAPIError, match="no_such_column") as caught:
            await db.fetch_all(text(BROKEN), {"email": email})
        assert email not in str(caught.value)
        return
    engine = engines[engine_of]()
    if isinstance(engine, Engine):
        message = _sync_error(engine, email)
    else:
        try:
            async with engine.connect() as connection:  # type: ignore[attr-defined]
                await connection.execute(text(BROKEN), {"email": email})
        except DBAPIError as exc:
            message = str(exc)
        else:
            raise AssertionError("the statement did not fail")
        finally:
            if engine_of == "null_pool":
                await engine.dispose()  # type: ignore[attr-defined]
    assert "no_such_column" in message
    assert email not in message


def test_exceptions_passed_as_arguments_or_fields_are_written_safely() -> None:
    class Body(BaseModel):
        count: int

    email = an_email()
    stream = io.StringIO()
    logger = logging.getLogger("gatehouse.test.safe_exceptions")
    logger.addHandler(json_handler(stream))
    logger.propagate = False
    try:
        try:
            Body.model_validate({"count": email})
        except Exception as exc:
            logger.exception("validation failed")
            logger.error("validation failed: %s", exc)
            logger.error("validation failed", extra={"error": exc})
    finally:
        logger.handlers.clear()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3
    assert all("count: Input should be a valid integer" in line for line in lines)
    assert [line for line in lines if email in line] == []
