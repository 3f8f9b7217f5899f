"""Screening finds listed people across scripts, word orders, missing middle names and
dropped diacritics, and listed companies under another legal form, through the whole path:
a loaded list, the blocking index, the matcher's process, the recorded hits and the staff
read (docs/screening.md, "How names are matched")."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from gatehouse.runtime import Runtime
from tests.screening.conftest import Applicant
from tests.screening.support import run_jobs
from tests.support.factories import StaffFixture

PEOPLE = [
    ("Vladimir Putin", "NK-putin"),  # listed in Cyrillic, with a patronymic
    ("Putin Vladimir", "NK-putin"),  # word order
    ("Saddam Hussein", "NK-saddam"),  # listed in Arabic
    ("Xi Jinping", "NK-xi"),  # listed in Chinese
    ("Jose Maria Alvarez Garcia", "NK-alvarez"),  # diacritics dropped
    ("Alvarez Garcia Jose Maria", "NK-alvarez"),  # diacritics and order
    ("Ramzan Kadyrov", "NK-kadyrov"),  # the middle name missing
]
COMPANIES = [("ROSNEFT OIL CO.", "NK-rosneft"), ("Romashka LLC", "NK-romashka")]


async def _screening(
    client: httpx.AsyncClient, staff: StaffFixture, client_id: str
) -> dict[str, object]:
    read = await client.get(f"/staff/v1/applications/{client_id}/screening", headers=staff.headers)
    assert read.status_code == 200, read.text
    body: dict[str, object] = read.json()
    return body


@pytest.mark.parametrize(("applied", "entity_id"), PEOPLE)
async def test_a_listed_person_is_found(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    applicant: Applicant,
    analyst: StaffFixture,
    applied: str,
    entity_id: str,
) -> None:
    client_id = await applicant(directorName=applied)
    assert await run_jobs(runtime) == 1
    body = await _screening(client, analyst, client_id)
    assert body["status"] == "hits"
    hits = body["data"]
    assert isinstance(hits, list)
    found = [hit for hit in hits if hit["entityId"] == entity_id]
    assert found, hits
    hit = found[0]
    assert hit["subject"] == {"kind": "person", "name": applied, "field": "directorName"}
    assert hit["list"] == "test-list"
    assert hit["schema"] == "Person"
    assert 0.7 <= hit["score"] <= 1
    assert hit["status"] == "open"
    assert hit["explanation"], hit
    assert hit["entity"]["names"]


@pytest.mark.parametrize(("applied", "entity_id"), COMPANIES)
async def test_a_listed_company_is_found_under_another_legal_form(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    applicant: Applicant,
    analyst: StaffFixture,
    applied: str,
    entity_id: str,
) -> None:
    client_id = await applicant(company=applied)
    await run_jobs(runtime)
    body = await _screening(client, analyst, client_id)
    hits = body["data"]
    assert isinstance(hits, list)
    assert [hit["entityId"] for hit in hits][:1] == [entity_id], hits
    assert hits[0]["subject"] == {"kind": "company", "name": applied, "field": "companyName"}


async def test_unlisted_names_are_clear(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    applicant: Applicant,
    analyst: StaffFixture,
) -> None:
    client_id = await applicant(company="Blue Harbour Bakery GmbH", directorName="Mette Fjordsen")
    await run_jobs(runtime)
    body = await _screening(client, analyst, client_id)
    assert body == {"status": "clear", "screenedAt": body["screenedAt"], "data": []}
    assert body["screenedAt"]


async def test_a_different_birth_date_lowers_the_score(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    applicant: Applicant,
    analyst: StaffFixture,
) -> None:
    same = await applicant(directorName="Vladimir Putin", directorBirthDate="1952-10-07")
    other = await applicant(directorName="Vladimir Putin", directorBirthDate="1990-03-01")
    await run_jobs(runtime)
    scores = []
    for client_id in (same, other):
        hits = (await _screening(client, analyst, client_id))["data"]
        assert isinstance(hits, list)
        scores.append(max([h["score"] for h in hits if h["entityId"] == "NK-putin"] or [0.0]))
    assert scores[0] > scores[1]


async def test_without_lists_nothing_is_screened(
    client: httpx.AsyncClient, runtime: Runtime, applicant: Applicant, analyst: StaffFixture
) -> None:
    client_id = await applicant(directorName="Vladimir Putin")
    await run_jobs(runtime)
    body = await _screening(client, analyst, client_id)
    assert body == {"status": "not_screened", "screenedAt": None, "data": []}
