"""What a second outside probe of a running server found, each fixed where it lived
(docs/platform.md, "Text input"): a static file name the file system cannot look up.
SQLite by default, PostgreSQL with GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import httpx
import pytest



@pytest.mark.parametrize(
    "name",
    [
        "a" * 300,  # one path component past NAME_MAX
        "a" * 5000,
        "/".join(["a" * 200] * 30),  # past PATH_MAX
        "gatehouse.css/" + "b" * 400,
        "../" * 40 + "etc/passwd",
    ],
    ids=["name-max", "huge", "path-max", "below-a-file", "escape"],
)
async def test_a_static_name_no_file_system_takes_is_404(
    client: httpx.AsyncClient, name: str
) -> None:
    response = await client.get("/static/" + name)
    assert response.status_code == 404, response.text
    assert (await client.get("/static/gatehouse.css")).status_code == 200
