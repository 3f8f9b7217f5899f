"""Generated watchlists and helpers for the screening tests (no data is downloaded).

`write_list` writes an `entities.ftm.json` file: the named entities below (people listed in
Cyrillic, Arabic, Chinese and Latin with diacritics, PEPs, companies under a legal form),
entities of schemata that are not screened, and `filler` generated people and companies so
the blocking index has other entities to choose from.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import httpx
import orjson

from gatehouse.risk import recompute_risk
from gatehouse.runtime import Runtime
from gatehouse.screening import jobs
from gatehouse.screening.lists import LoadResult, load_list
from gatehouse.screening.runner import run_job

PUTIN = {
    "id": "NK-putin",
    "schema": "Person",
    "properties": {
        "name": ["Владимир Владимирович Путин"],
        "birthDate": ["1952-10-07"],
        "nationality": ["ru"],
        "topics": ["role.pep", "sanction"],
    },
}
SADDAM = {
    "id": "NK-saddam",
    "schema": "Person",
    "properties": {"name": ["صدام حسين"], "topics": ["sanction"], "country": ["iq"]},
}
XI = {
    "id": "NK-xi",
    "schema": "Person",
    "properties": {"name": ["习近平"], "topics": ["role.pep"], "country": ["cn"]},
}
ALVAREZ = {
    "id": "NK-alvarez",
    "schema": "Person",
    "properties": {"name": ["José María Álvarez García"], "topics": ["crime"]},
}
KADYROV = {
    "id": "NK-kadyrov",
    "schema": "Person",
    "properties": {"name": ["Ramzan Akhmadovich Kadyrov"], "topics": ["sanction", "role.pep"]},
}
ROSNEFT = {
    "id": "NK-rosneft",
    "schema": "Company",
    "properties": {"name": ["Rosneft Oil Company"], "topics": ["sanction"], "country": ["ru"]},
}
ROMASHKA = {
    "id": "NK-romashka",
    "schema": "Company",
    "properties": {"name": ["ООО Ромашка"], "topics": ["sanction"]},  # noqa: RUF001 (Cyrillic)
}
NAMED = [PUTIN, SADDAM, XI, ALVAREZ, KADYROV, ROSNEFT, ROMASHKA]
NOT_SCREENED = [
    {"id": "NK-vessel", "schema": "Vessel", "properties": {"name": ["Putin Star"]}},
    {"id": "NK-sanction", "schema": "Sanction", "properties": {"program": ["EU 269/2014"]}},
]
GIVEN = ["Anna", "Peter", "Maria", "Jonas", "Ingrid", "Tomasz", "Lucia", "Henrik", "Olga"]
FAMILY = ["Berger", "Novak", "Lindqvist", "Moreau", "Keller", "Dubois", "Horvat", "Jensen"]


def filler(count: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for n in range(count):
        if n % 3 == 0:
            name = f"{rng.choice(FAMILY)} {rng.choice(['Trading', 'Holding', 'Shipping'])} {n}"
            out.append({"id": f"F-{n}", "schema": "Company", "properties": {"name": [name]}})
        else:
            name = f"{rng.choice(GIVEN)} {rng.choice(FAMILY)}{n}"
            out.append({"id": f"F-{n}", "schema": "Person", "properties": {"name": [name]}})
    return out


def write_list(path: Path, entities: list[dict[str, Any]] | None = None) -> Path:
    chosen = entities if entities is not None else [*NAMED, *NOT_SCREENED, *filler(200)]
    path.write_bytes(b"".join(orjson.dumps(entity) + b"\n" for entity in chosen))
    return path


async def load(runtime: Runtime, path: Path, name: str = "test-list") -> LoadResult:
    return await load_list(runtime, path, name)


async def run_jobs(runtime: Runtime) -> int:
    """Run the screening jobs that are due, as the worker does, until none is left."""
    done = 0
    while claimed := await jobs.claim(runtime, 10):
        for job in claimed:
            await run_job(runtime, job, recompute_risk)
            done += 1
    return done


PEOPLE_FIELDS = [
    {"key": "directorName", "label": "Director", "type": "text", "required": False},
    {"key": "directorBirthDate", "label": "Born", "type": "date", "required": False},
    {"key": "directorCountry", "label": "Nationality", "type": "text", "required": False},
    {"key": "country", "label": "Country", "type": "text", "required": False},
]
SCREENING = {
    "people": [
        {"name": "directorName", "birthDate": "directorBirthDate", "nationality": "directorCountry"}
    ]
}


async def screened_intake(
    client: httpx.AsyncClient, admin_headers: dict[str, str], tenant_id: str, **extra: Any
) -> str:
    """An intake with a director to screen, made through the staff API."""
    body = {"name": "Screened", "formFields": PEOPLE_FIELDS, "screening": SCREENING, **extra}
    made = await client.post(
        f"/staff/v1/tenants/{tenant_id}/intakes", json=body, headers=admin_headers
    )
    assert made.status_code == 201, made.text
    return str(made.json()["labelId"])
