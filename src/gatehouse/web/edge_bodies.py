"""Request bodies the edge reads before the route (web/edge_checks.py): a JSON body
whole, a form spooled (in memory up to `SPOOL_IN_MEMORY`, then on disk: an upload is
never held whole in memory, docs/documents.md §1), and the `receive` that hands either
over to the route unchanged."""

from __future__ import annotations

from collections.abc import AsyncIterator
from tempfile import SpooledTemporaryFile

from starlette.types import Message, Receive


async def read_body(receive: Receive) -> bytes | None:
    """The whole body, or None when the client disconnects first."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


# A form body is held in memory up to this size, then on disk (an upload can be 10 MiB).
SPOOL_IN_MEMORY = 1024 * 1024
SPOOL_CHUNK = 64 * 1024


async def spool_body(receive: Receive) -> SpooledTemporaryFile[bytes] | None:
    """The whole body in a spooled file, or None when the client disconnects first."""
    spooled: SpooledTemporaryFile[bytes]
    spooled = SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115 (the edge closes it)
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            spooled.close()
            return None
        spooled.write(message.get("body", b""))
        if not message.get("more_body", False):
            return spooled


async def chunks_of(spooled: SpooledTemporaryFile[bytes]) -> AsyncIterator[bytes]:
    spooled.seek(0)
    while chunk := spooled.read(SPOOL_CHUNK):
        yield chunk


def replay_spool(spooled: SpooledTemporaryFile[bytes], receive: Receive) -> Receive:
    """A `receive` that hands over the spooled body in pieces, then what the client sends."""
    spooled.seek(0)
    ahead = [spooled.read(SPOOL_CHUNK)]
    done = [False]

    async def replay() -> Message:
        if done[0]:
            return await receive()
        chunk = ahead[0]
        ahead[0] = spooled.read(SPOOL_CHUNK)
        done[0] = not ahead[0]
        return {"type": "http.request", "body": chunk, "more_body": not done[0]}

    return replay


def replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands over `body` once, then what the client sends (disconnect)."""
    handed = [False]

    async def replay() -> Message:
        if not handed[0]:
            handed[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
