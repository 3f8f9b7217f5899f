"""The source address of a request, believing X-Forwarded-For only from trusted proxies."""

from __future__ import annotations

from starlette.types import Scope


def client_address(scope: Scope, trusted: frozenset[str]) -> str:
    client = scope.get("client")
    peer = str(client[0]) if client else "unknown"
    if not trusted or peer not in trusted:
        return peer
    forwarded: str | None = None
    for name, value in scope.get("headers", []):
        if name == b"x-forwarded-for":
            forwarded = value.decode("latin-1")
    if not forwarded:
        return peer
    # Walk from the right: the first address not of a trusted proxy is the client.
    hops = [h.strip() for h in forwarded.split(",") if h.strip()]
    for hop in reversed(hops):
        if hop not in trusted:
            return hop
    return hops[0] if hops else peer
