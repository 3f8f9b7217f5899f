"""Sign-in links (docs/reference/tenant-api.md §5.2, §5.6; docs/reference/portal.md).

A link is `PUBLIC_URL/portal/login/<token>`: a random token of which only a
keyed hash is stored, single use, three days. The token and the URL are
returned once and never logged.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications.schemas import SignInLink
from gatehouse.ids import new_id, random_token
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import LoginLink
from gatehouse.timeutil import format_ts

LINK_LIFETIME = timedelta(days=3)
LOGIN_PATH = "/portal/login/"


@dataclass(frozen=True, slots=True)
class MintedLink:
    login_url: str
    expires_at: datetime

    def __repr__(self) -> str:  # the URL is a credential: keep it out of reprs
        return f"MintedLink(expires_at={self.expires_at!r})"

    def view(self, client_id: str) -> SignInLink:
        """`{loginUrl, clientId, expiresAt}` (docs/reference/tenant-api.md §5)."""
        return {
            "loginUrl": self.login_url,
            "clientId": client_id,
            "expiresAt": format_ts(self.expires_at),
        }


def mint_link(
    session: AsyncSession,
    runtime: Runtime,
    *,
    application_id: str,
    member_id: str,
    redirect_path: str | None,
    now: datetime,
) -> MintedLink:
    """Store a new link for one member; `redirect_path` is already allow-listed."""
    token = random_token(43)
    expires_at = now + LINK_LIFETIME
    session.add(
        LoginLink(
            id=new_id("lnk"),
            application_id=application_id,
            member_id=member_id,
            token_hash=runtime.crypto.hash_secret(token),
            redirect_path=redirect_path,
            created_at=now,
            expires_at=expires_at,
        )
    )
    return MintedLink(runtime.settings.base_url + LOGIN_PATH + token, expires_at)
