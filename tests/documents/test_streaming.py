"""Uploads are not held whole in memory on their way to the route: the edge keeps a form body
in a spooled file (memory up to 1 MiB, then disk) and hands it to the route in pieces
(docs/documents.md §1; the server's memory under concurrent uploads is measured by
bench/documents.py)."""

from __future__ import annotations

import os

from starlette.types import Message

from gatehouse.web.edge_bodies import SPOOL_CHUNK, SPOOL_IN_MEMORY, replay_spool, spool_body


async def test_a_large_form_body_is_spooled_to_disk_and_handed_on_in_pieces() -> None:
    body = os.urandom(3 * 1024 * 1024 + 5)
    pieces = [body[i : i + 100_000] for i in range(0, len(body), 100_000)]

    async def receive() -> Message:
        chunk = pieces.pop(0)
        return {"type": "http.request", "body": chunk, "more_body": bool(pieces)}

    spooled = await spool_body(receive)
    assert spooled is not None
    try:
        assert len(body) > SPOOL_IN_MEMORY
        assert spooled._rolled  # past 1 MiB the body lives in a file on disk

        async def disconnected() -> Message:
            return {"type": "http.disconnect"}

        replay = replay_spool(spooled, disconnected)
        handed: list[bytes] = []
        while True:
            message = await replay()
            handed.append(message["body"])
            if not message["more_body"]:
                break
        assert max(len(piece) for piece in handed) <= SPOOL_CHUNK
        assert b"".join(handed) == body
        assert (await replay())["type"] == "http.disconnect"
    finally:
        spooled.close()


async def test_a_client_that_goes_away_leaves_nothing() -> None:
    messages: list[Message] = [
        {"type": "http.request", "body": b"x" * 1000, "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive() -> Message:
        return messages.pop(0)

    assert await spool_body(receive) is None
