"""Lua scripts run over a few plain Redis connections, for the `/v1` hot path.

The rate-limit windows (limits/ratelimit.py) cost one EVALSHA per authenticated `/v1`
request. Through coredis each cost about 80 us of this process's CPU (its command
pipeline, response callbacks and connection bookkeeping); written here as RESP over an
asyncio stream, about 15 us. Only what the scripts need is implemented: EVALSHA (EVAL
once when the server answers NOSCRIPT), AUTH and SELECT on connect, and the RESP2
replies a script can give.

Connections are opened on demand, at most `MAX_CONNECTIONS`, each carrying one command
at a time (no pipelining), and kept for the next command. Failures:

- A whole error reply (`-ERR …`, also as an element of an array) is read to its end and
  raised as `RedisReplyError`; the connection stays in step and is kept.
- Anything else (a broken or refused connection, a reply that does not parse, a timeout
  of `TIMEOUT_SECONDS` for the whole call, a cancelled request) closes the connection,
  since a half-read reply would be taken for the next command's; the caller sees the
  exception (the limiter then serves the request unlimited, docs/platform.md).
- A kept connection the server has closed since (a restart, its idle `timeout`) fails on
  first use with an end of stream before any byte of reply: the command never ran, so it
  is sent once more on a new connection, and the other kept connections, most likely
  closed by the same cause, are dropped.

URLs: `redis://` and `rediss://` (TLS, certificates verified) with an optional user,
password and database number, and no query options; anything else is left to coredis
(`ScriptClient.supports`).
"""

from __future__ import annotations

import asyncio
import hashlib
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

MAX_CONNECTIONS = 16
TIMEOUT_SECONDS = 5.0


class RedisReplyError(Exception):
    """The server answered a command with an error."""


class _Stale(Exception):
    """A kept connection was closed by the server before this command reached it."""


@dataclass(frozen=True, slots=True)
class Script:
    """A Lua script and its SHA-1 (what EVALSHA names it by)."""

    text: bytes
    sha: bytes

    @classmethod
    def of(cls, text: str) -> Script:
        data = text.encode()
        return cls(data, hashlib.sha1(data, usedforsecurity=False).hexdigest().encode())


def _encode(parts: Sequence[bytes | str | int]) -> bytes:
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


async def _read_value(reader: asyncio.StreamReader) -> Any:
    """One RESP2 value, read whole; an error reply is returned as a `RedisReplyError`."""
    line = await reader.readuntil(b"\r\n")
    kind, body = line[:1], line[1:-2]
    if kind == b":":
        return int(body)
    if kind == b"$":
        size = int(body)
        if size < 0:
            return None
        data = await reader.readexactly(size + 2)
        if data[-2:] != b"\r\n":
            raise ConnectionError("malformed bulk reply from Redis")
        return data[:-2]
    if kind == b"*":
        count = int(body)
        if count < 0:
            return None
        return [await _read_value(reader) for _ in range(count)]
    if kind == b"+":
        return body
    if kind == b"-":
        return RedisReplyError(body.decode(errors="replace"))
    raise ConnectionError(f"unexpected reply from Redis: {line[:20]!r}")


def _first_error(value: Any) -> RedisReplyError | None:
    if isinstance(value, RedisReplyError):
        return value
    if isinstance(value, list):
        for item in value:
            error = _first_error(item)
            if error is not None:
                return error
    return None


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.used = False  # has answered a command before (so it may have gone stale)

    async def command(self, parts: Sequence[bytes | str | int]) -> Any:
        """The reply; a `RedisReplyError` is raised once the whole reply has been read."""
        self.writer.write(_encode(parts))
        try:
            reply = await _read_value(self.reader)
        except asyncio.IncompleteReadError as exc:
            if self.used and not exc.partial:
                raise _Stale from exc
            raise ConnectionError("Redis closed the connection") from exc
        except ConnectionResetError as exc:
            if self.used:
                raise _Stale from exc
            raise
        self.used = True
        error = _first_error(reply)
        if error is not None:
            raise error
        return reply

    def close(self) -> None:
        self.writer.close()


class ScriptClient:
    """Runs scripts by their SHA-1, loading each when the server does not know it."""

    def __init__(self, url: str, max_connections: int = MAX_CONNECTIONS) -> None:
        parts = urlsplit(url)
        if not self.supports(url):
            raise ValueError(f"unsupported Redis URL for this client: scheme {parts.scheme}")
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or 6379
        self._ssl = ssl.create_default_context() if parts.scheme == "rediss" else None
        self._username = unquote(parts.username) if parts.username else None
        self._password = unquote(parts.password) if parts.password else None
        path = parts.path.strip("/")
        self._db = int(path) if path.isdigit() else 0
        self._max = max_connections
        self._idle: list[_Connection] = []
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    @staticmethod
    def supports(url: str) -> bool:
        """`redis://` or `rediss://`, without query options (coredis reads those)."""
        parts = urlsplit(url)
        path = parts.path.strip("/")
        return (
            parts.scheme in ("redis", "rediss")
            and not parts.query
            and not parts.fragment
            and (not path or path.isdigit())
        )

    async def run(
        self, script: Script, keys: Sequence[str], args: Sequence[int | str | bytes]
    ) -> Any:
        """The script's reply for these keys and arguments.

        `asyncio.timeout` rather than `wait_for`: no task of its own per call.
        """
        if self._closed:
            raise ConnectionError("the Redis script client is closed")
        async with asyncio.timeout(TIMEOUT_SECONDS), self._slots_of_this_loop():
            command: list[bytes | str | int] = [b"EVALSHA", script.sha, len(keys), *keys, *args]
            try:
                return await self._on_a_connection(script, command)
            except _Stale:
                # Every kept connection most likely went the same way: start afresh.
                self._drop_idle()
                return await self._on_a_connection(script, command)

    async def _on_a_connection(self, script: Script, command: list[bytes | str | int]) -> Any:
        connection = self._idle.pop() if self._idle else await self._connect()
        try:
            try:
                reply = await connection.command(command)
            except RedisReplyError as exc:
                if not str(exc).startswith("NOSCRIPT"):
                    raise
                reply = await connection.command([b"EVAL", script.text, *command[2:]])
        except RedisReplyError:
            self._keep(connection)  # a whole reply was read: still in step
            raise
        except BaseException:
            # A half-read reply would be the next command's answer: never reuse it.
            connection.close()
            raise
        self._keep(connection)
        return reply

    def _keep(self, connection: _Connection) -> None:
        if self._closed or self._loop is not asyncio.get_running_loop():
            connection.close()
        else:
            self._idle.append(connection)

    def _drop_idle(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    def _slots_of_this_loop(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:
            # Connections belong to the loop that opened them (tests run several loops).
            self._drop_idle()
            self._loop = loop
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
        # A fresh connection's failure is never taken for a stale one (no second try).
        connection.used = False
        return connection

    @property
    def idle_connections(self) -> int:
        return len(self._idle)

    async def close(self) -> None:
        """Close every kept connection; connections in use are closed when handed back."""
        self._closed = True
        self._drop_idle()
