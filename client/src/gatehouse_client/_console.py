"""Links to the tenant console (docs/reference/tenant-api.md §5.16, docs/console.md):
``client.console_sessions``.

The console is where a tenant's developers manage its webhooks in the browser. The tenant's
backend mints a link for one of its own signed-in people and hands it to them; the link works
once, for 10 minutes, and the session it opens acts as the API key that minted it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from gatehouse_client._calls import Call, idempotency_key_for, object_body
from gatehouse_client._fields import Model, parse_timestamp, text_of
from gatehouse_client._retry import Safety

if TYPE_CHECKING:
    from gatehouse_client._async_client import AsyncClient
    from gatehouse_client._client import Client

__all__ = ["AsyncConsoleSessions", "ConsoleSession", "ConsoleSessions", "create_console_session"]


@dataclass(frozen=True)
class ConsoleSession(Model):
    """A console link. `url` is a single-use credential: left out of `repr`; never log it."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"url", "expiresAt"})

    url: str = field(default="", repr=False)
    expires_at: datetime | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ConsoleSession:
        return cls(
            raw=data,
            url=text_of(data, "url") or "",
            expires_at=parse_timestamp(data.get("expiresAt")),
        )


def create_console_session(
    *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[ConsoleSession]:
    """POST /v1/console-sessions (scope webhooks:manage): 201 `{url, expiresAt}`.

    Repeated after an ambiguous failure only with its Idempotency-Key (the server then
    answers the same link).
    """
    return Call(
        "POST",
        "/v1/console-sessions",
        lambda _s, b: ConsoleSession.from_json(object_body(b)),
        Safety.KEYED,
        body={},
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


class ConsoleSessions:
    """``client.console_sessions``."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def create(
        self, *, idempotency_key: str | None = None, idempotent: bool = True
    ) -> ConsoleSession:
        """Mint a single-use console link (valid 10 minutes) for one of your own people."""
        return self._client.send(
            create_console_session(idempotency_key=idempotency_key, idempotent=idempotent)
        )


class AsyncConsoleSessions:
    """``client.console_sessions`` of the AsyncClient."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def create(
        self, *, idempotency_key: str | None = None, idempotent: bool = True
    ) -> ConsoleSession:
        """Mint a single-use console link (valid 10 minutes) for one of your own people."""
        return await self._client.send(
            create_console_session(idempotency_key=idempotency_key, idempotent=idempotent)
        )
