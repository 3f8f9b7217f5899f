"""Fixtures of the document tests: a real S3-compatible server, a real clamd, and the
location of each document store."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.document_services import (
    CLAMD,
    Clamd,
    S3Server,
    clamd_server,
    s3_environment,
    s3_server,
)

STORES = ("database", "file", "s3")


@pytest.fixture(scope="session")
def s3_running() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@pytest.fixture
def s3_location(s3_running: S3Server) -> Iterator[str]:
    """`s3://<fresh bucket>/evidence`, with the AWS variables pointing at the server."""
    bucket = "gatehouse-" + secrets.token_hex(6)
    with s3_environment(s3_running):
        s3_running.client().create_bucket(Bucket=bucket)  # type: ignore[attr-defined]
        yield f"s3://{bucket}/evidence"


@pytest.fixture(scope="session")
def clamd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clamd]:
    if CLAMD is None:
        pytest.skip("clamd is not installed (Debian: apt-get install clamav-daemon)")
    with clamd_server(tmp_path_factory.mktemp("clamd")) as running:
        yield running


def location_of(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if kind == "database":
        return "database"
    if kind == "file":
        return f"file://{tmp_path}/documents"
    return str(request.getfixturevalue("s3_location"))


@pytest.fixture(params=STORES)
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each store in turn: `database`, `file:///<tmp>/documents`, `s3://<bucket>/evidence`."""
    return location_of(str(request.param), request, tmp_path)
