"""Personal API tokens for `/staff/v1` (docs/reference/staff-api.md §9).

A token is `staff_<id>_<secret>`, shown once; only a keyed digest of the secret is kept. Each
staff member lists, makes and revokes their own. A token acts with its owner's current role,
stops at once when revoked, expired, or when its owner is deactivated (which revokes every
token), and never opens a dashboard session. The token made with the staff member is their
first personal token.
"""

from __future__ import annotations

import secrets
import string
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.accounts.schemas import (
    CreatedPersonalToken,
    PersonalToken,
    PersonalTokenList,
    token_view,
)
from gatehouse.audit.context import WriteContext
from gatehouse.domain.normalize import cut_text
from gatehouse.domain.numbers import parse_int
from gatehouse.domain.principals import STAFF_PREFIX, staff_token
from gatehouse.errors import invalid_argument, not_found
from gatehouse.ids import random_token
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.staff_identity import TOKEN_ROW_PREFIX, StaffToken
from gatehouse.timeutil import format_ts

DEFAULT_LIFETIME_DAYS = 90
MAX_LIFETIME_DAYS = 365
FIRST_TOKEN_NAME = "First token"  # noqa: S105 - a display name, not a secret
_ID_ALPHABET = string.ascii_lowercase + string.digits


def token_row_id(id_part: str) -> str:
    """The row id of the token whose string carries `id_part`."""
    return TOKEN_ROW_PREFIX + id_part


def first_token(runtime: Runtime, staff_id: str, now: datetime) -> tuple[str, StaffToken]:
    """The token made with a staff member (its id part is the staff member's own): the
    token string and the row to add."""
    secret = random_token(40)
    row = StaffToken(
        id=token_row_id(staff_id.removeprefix(STAFF_PREFIX)),
        staff_id=staff_id,
        name=FIRST_TOKEN_NAME,
        token_hash=runtime.crypto.hash_secret(secret),
        created_at=now,
    )
    return staff_token(staff_id, secret), row


def check_token_input(name: object, expires_in_days: object) -> tuple[str, int]:
    cut = cut_text(name) if isinstance(name, str) else None
    if not cut:
        raise invalid_argument("name must be a nonempty string.", "name", "required")
    if expires_in_days is None:
        return cut, DEFAULT_LIFETIME_DAYS
    return cut, parse_int(expires_in_days, "expiresInDays", 1, MAX_LIFETIME_DAYS)


async def list_tokens(runtime: Runtime, staff_id: str) -> PersonalTokenList:
    """The caller's own tokens, newest first: `{data: [...]}`."""
    async with runtime.db.read() as session:
        rows = (
            await session.scalars(
                select(StaffToken)
                .where(StaffToken.staff_id == staff_id)
                .order_by(StaffToken.created_at.desc(), StaffToken.id.desc())
            )
        ).all()
    now = runtime.now()
    return {"data": [token_view(token, now) for token in rows]}


async def create_token(
    runtime: Runtime, staff_id: str, name: object, expires_in_days: object, ctx: WriteContext
) -> CreatedPersonalToken:
    """201 `{tokenId, token, name, expiresAt}`; the token is shown this once."""
    cut, days = check_token_input(name, expires_in_days)
    id_part = "".join(secrets.choice(_ID_ALPHABET) for _ in range(20))
    secret = random_token(40)
    expires_at = ctx.now + timedelta(days=days)
    async with runtime.db.write() as session:
        token = StaffToken(
            id=token_row_id(id_part),
            staff_id=staff_id,
            name=cut,
            token_hash=runtime.crypto.hash_secret(secret),
            created_at=ctx.now,
            expires_at=expires_at,
        )
        session.add(token)
        ctx.audit(session, "staff_token.created", token.id)
    return {
        "tokenId": token.id,
        "token": f"staff_{id_part}_{secret}",
        "name": cut,
        "expiresAt": format_ts(expires_at),
    }


async def revoke_token(
    runtime: Runtime, staff_id: str, token_id: str, ctx: WriteContext
) -> PersonalToken:
    """Revoke one of the caller's own tokens (404 for anyone else's); it fails at once."""
    async with runtime.db.write() as session:
        token = await session.scalar(
            select(StaffToken)
            .where(StaffToken.id == token_id, StaffToken.staff_id == staff_id)
            .with_for_update()
        )
        if token is None:
            raise not_found("No such token.")
        if token.revoked_at is None:
            token.revoked_at = ctx.now
        ctx.audit(session, "staff_token.revoked", token.id)
        await session.flush()
        view = token_view(token, ctx.now)
    return view


async def revoke_all_tokens(session: AsyncSession, staff_id: str, now: datetime) -> None:
    """Every token of a staff member stops working (deactivation)."""
    await session.execute(
        update(StaffToken)
        .where(StaffToken.staff_id == staff_id, StaffToken.revoked_at.is_(None))
        .values(revoked_at=now)
    )
