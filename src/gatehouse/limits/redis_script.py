"""One Lua script run over a few plain Redis connections, for the `/v1` hot path.

The rate-limit windows (limits/ratelimit.py) cost one EVALSHA per check, two per
authenticated `/v1` request. Through coredis each cost about 80 us of this process's
CPU (its command pipeline, response callbacks and connection bookkeeping); written
here as RESP over an asyncio stream, about 15 us. Only what the script needs is
implemented: EVALSHA (EVAL once when the server answers NOSCRIPT), AUTH and SELECT
on connect, and the RESP2 replies a script can give.

Connections are opened on demand, at most `MAX_CONNECTIONS`, each carrying one
command at a time, and kept for the next command. A connection that fails or times
out is dropped; the caller sees the exception (the limiter then serves the request
unlimited, as for any storage failure). URLs: `redis://` and `rediss://` (TLS) with
an optional user, password and database number; other schemes are not handled here
(`ScriptClient.supports`).
"""

from __future__ import annotations

import asyncio
import hashlib
import ssl
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

MAX_CONNECTIONS = 16
TIMEOUT_SECONDS = 5.0


class RedisReplyError(Exception):
    """The server answered a command with an error."""


def _encode(parts: Sequence[bytes | str | int]) -> bytes:
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


async def _read_reply(reader: asyncio.StreamReader) -> Any:
    line = await reader.readuntil(b"\r\n")
    kind, body = line[:1], line[1:-2]
    if kind == b":":
        return int(body)
    if kind == b"$":
        size = int(body)
        if size < 0:
            return None
        data = await reader.readexactly(size + 2)
        return data[:-2]
    if kind == b"*":
        count = int(body)
        if count < 0:
            return None
        return [await _read_reply(reader) for _ in range(count)]
    if kind == b"+":
        return body
    if kind == b"-":
        raise RedisReplyError(body.decode(errors="replace"))
    raise ConnectionError(f"unexpected reply from Redis: {line[:20]!r}")


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def command(self, parts: Sequence[bytes | str | int]) -> Any:
        self.writer.write(_encode(parts))
        return await _read_reply(self.reader)

    def close(self) -> None:
        self.writer.close()


class ScriptClient:
    """Runs `script` by its SHA-1, loading it when the server does not know it."""

    def __init__(self, url: str, script: str, max_connections: int = MAX_CONNECTIONS) -> None:
        parts = urlsplit(url)
        if not self.supports(url):
            raise ValueError(f"unsupported Redis URL scheme: {parts.scheme}")
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or 6379
        self._ssl = ssl.create_default_context() if parts.scheme == "rediss" else None
        self._username = unquote(parts.username) if parts.username else None
        self._password = unquote(parts.password) if parts.password else None
        path = parts.path.strip("/")
        self._db = int(path) if path.isdigit() else 0
        self._script = script.encode()
        self._sha = hashlib.sha1(self._script, usedforsecurity=False).hexdigest().encode()
        self._max = max_connections
        self._idle: list[_Connection] = []
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @staticmethod
    def supports(url: str) -> bool:
        return urlsplit(url).scheme in ("redis", "rediss")

    async def run(self, keys: Sequence[str], args: Sequence[int | str]) -> Any:
        """The script's reply for these keys and arguments."""
        return await asyncio.wait_for(self._run(keys, args), TIMEOUT_SECONDS)

    async def _run(self, keys: Sequence[str], args: Sequence[int | str]) -> Any:
        slots = self._slots_of_this_loop()
        async with slots:
            connection = self._idle.pop() if self._idle else await self._connect()
            try:
                try:
                    reply = await connection.command(
                        [b"EVALSHA", self._sha, len(keys), *keys, *args]
                    )
                except RedisReplyError as exc:
                    if not str(exc).startswith("NOSCRIPT"):
                        raise
                    reply = await connection.command(
                        [b"EVAL", self._script, len(keys), *keys, *args]
                    )
            except RedisReplyError:
                self._idle.append(connection)  # a whole reply was read: still in step
                raise
            except BaseException:
                # A half-read reply would be the next command's answer: never reuse it.
                connection.close()
                raise
            self._idle.append(connection)
            return reply

    def _slots_of_this_loop(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:
            # Connections belong to the loop that opened them (tests run several loops).
            for connection in self._idle:
                connection.close()
            self._idle, self._loop = [], loop
            self._slots = asyncio.Semaphore(self._max)
        return self._slots

    async def _connect(self) -> _Connection:
        reader, writer = await asyncio.open_connection(self._host, self._port, ssl=self._ssl)
        connection = _Connection(reader, writer)
        try:
            if self._password is not None:
                auth: list[bytes | str | int] = [b"AUTH"]
                if self._username:
                    auth.append(self._username)
                await connection.command([*auth, self._password])
            if self._db:
                await connection.command([b"SELECT", self._db])
        except BaseException:
            connection.close()
            raise
        return connection

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
