"""GATEHOUSE_DOCUMENT_STORE and GATEHOUSE_CLAMD_ADDRESS are checked when settings load
(docs/reference/settings.md §2)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gatehouse.settings import Settings


@pytest.mark.parametrize(
    "store", ["database", "file:///srv/gatehouse/documents", "s3://evidence", "s3://evidence/kyc"]
)
def test_document_stores(store: str) -> None:
    assert Settings(document_store=store).document_store == store


@pytest.mark.parametrize(
    "store", ["", "db", "file://relative", "/srv/documents", "s3://", "s3:///kyc", "s3://b?x=1"]
)
def test_bad_document_stores(store: str) -> None:
    with pytest.raises(ValidationError):
        Settings(document_store=store)


@pytest.mark.parametrize("address", ["clamav:3310", "/run/clamav/clamd.ctl", "[::1]:3310"])
def test_clamd_addresses(address: str) -> None:
    assert Settings(clamd_address=address).clamd_address == address


def test_an_empty_clamd_address_means_no_scanning() -> None:
    assert Settings(clamd_address="  ").clamd_address is None
    with pytest.raises(ValidationError):
        Settings(clamd_address="clamav")
