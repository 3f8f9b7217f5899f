"""The benchmark scenarios, and the one-off requests that prepare and check them."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from urllib.parse import quote

import httpx

from bench.loadgen import Load
from bench.seed import Seeded
from bench.server import AUTHENTICATED_PATH, BASELINE_PATH

BASELINE = "baseline"
AUTHENTICATED = "authenticated no-op (/v1)"
READ = "application read"
LIST_FIRST = "list page of 100"
LIST_DEEP = "list page of 100 at depth"
PROVISION_NEW = "provision new identity"
PROVISION_REPEAT = "provision repeat"
MEMBER_ADD = "member add"
REPLAY = "idempotency replay"


@dataclass(frozen=True)
class Scenario:
    name: str
    load: Load
    # A single request that must answer `expect` before load is driven.
    expect: int
    expect_header: tuple[str, str] | None = None


@dataclass
class Prepared:
    scenarios: list[Scenario]
    # Scenario name -> why it cannot run (route missing, unexpected answer).
    skipped: dict[str, str]


def _auth(seeded: Seeded) -> str:
    return f"Bearer {seeded.api_key}"


def deep_cursor(base_url: str, seeded: Seeded, depth: int) -> str | None:
    """Walk `depth` rows of the list (pages of 100) and return the cursor there."""
    cursor: str | None = None
    headers = {"Authorization": _auth(seeded)}
    with httpx.Client(base_url=base_url, headers=headers, timeout=30) as client:
        for _ in range(depth // 100):
            query = "/v1/applications?limit=100" + (f"&cursor={quote(cursor)}" if cursor else "")
            response = client.get(query)
            if response.status_code != 200:
                return None
            cursor = response.json().get("nextCursor")
            if cursor is None:
                return None
    return cursor


def build(seeded: Seeded, cursor: str | None, depth: int) -> list[Scenario]:
    auth = _auth(seeded)
    reads = [f"/v1/applications/{app_id}" for app_id in seeded.sample_ids]
    members = [f"/v1/applications/{app_id}/members" for app_id in seeded.application_ids]
    scenarios = [
        Scenario(BASELINE, Load("GET", [BASELINE_PATH]), 200),
        Scenario(AUTHENTICATED, Load("GET", [AUTHENTICATED_PATH], auth), 200),
        Scenario(READ, Load("GET", reads, auth), 200),
        Scenario(LIST_FIRST, Load("GET", ["/v1/applications?limit=100"], auth), 200),
    ]
    if cursor is not None:
        path = f"/v1/applications?limit=100&cursor={quote(cursor)}"
        scenarios.append(Scenario(f"{LIST_DEEP} {depth:,}", Load("GET", [path], auth), 200))
    replay_key = "bench-replay-" + secrets.token_hex(6)
    scenarios += [
        Scenario(
            REPLAY,
            Load(
                "POST",
                ["/v1/applications"],
                auth,
                '{"email": "replayed-' + replay_key + '@bench.test"}',
                replay_key,
            ),
            201,
            ("idempotent-replayed", "true"),
        ),
        Scenario(
            PROVISION_REPEAT,
            Load("POST", ["/v1/applications"], auth, f'{{"email": "{seeded.repeat_email}"}}'),
            200,
        ),
        Scenario(
            PROVISION_NEW,
            Load("POST", ["/v1/applications"], auth, '{"email": "new-{n}@bench.test"}'),
            201,
        ),
        Scenario(
            MEMBER_ADD,
            Load("POST", members, auth, '{"email": "member-{n}@bench.test"}'),
            201,
        ),
    ]
    return scenarios


def check(base_url: str, scenario: Scenario, nonce: str) -> str | None:
    """Send the scenario's request once (twice for a replay); None when it answers right."""
    load = scenario.load
    headers = {"Authorization": load.auth} if load.auth else {}
    if load.idempotency_key:
        headers["Idempotency-Key"] = load.idempotency_key
    body = load.body.replace("{n}", f"{nonce}check") if load.body else None
    if body:
        headers["Content-Type"] = "application/json"
    with httpx.Client(base_url=base_url, timeout=30) as client:
        response = client.request(load.method, load.paths[0], headers=headers, content=body)
        if scenario.expect_header is not None:
            # The first request stores the answer; the second must be replayed.
            response = client.request(load.method, load.paths[0], headers=headers, content=body)
    if response.status_code == 404 and _route_missing(response):
        return "route not built yet"
    if response.status_code != scenario.expect:
        return f"answered {response.status_code}, expected {scenario.expect}"
    if scenario.expect_header is not None:
        name, value = scenario.expect_header
        if response.headers.get(name) != value:
            return f"no {name}: {value} header"
    return None


def _route_missing(response: httpx.Response) -> bool:
    try:
        message = str(response.json()["error"]["message"]).lower()
    except (ValueError, KeyError, TypeError):
        return True
    return "route" in message or "path" in message
