"""What a staff member has enrolled, and invites (docs/staff-identity.md "The invite").

An invite is a single-use link `PUBLIC_URL/dashboard/invite/<token>`, valid 72 hours, where
the person sets a password and (unless GATEHOUSE_STAFF_MFA=off) enrols TOTP. Only a keyed
digest of the token is stored. Opening the link consumes nothing; setting the password does.
A reset revokes any unused invite of the person and issues a new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.accounts import passwords
from gatehouse.audit.context import WriteContext
from gatehouse.ids import new_id, random_token
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.storage.tables.core import StaffMember
from gatehouse.storage.tables.staff_identity import (
    StaffCredential,
    StaffInvite,
    StaffPasskey,
    StaffRecoveryCode,
    StaffSignInFailure,
)

INVITE_LIFETIME = timedelta(hours=72)
INVITE_PATH = "/dashboard/invite/"


def mfa_required(settings: Settings) -> bool:
    return settings.staff_mfa != "off"


def staff_actor(staff_id: str) -> str:
    return f"staff:{staff_id}"


def as_staff(ctx: WriteContext, staff_id: str) -> WriteContext:
    """The same request and moment, acted by `staff_id` (known only once they proved it)."""
    return WriteContext(staff_actor(staff_id), None, ctx.request_id, ctx.now)


@dataclass(frozen=True, slots=True)
class Factors:
    """The second factors a staff member has enrolled."""

    totp: bool
    passkeys: int
    recovery_codes_left: int

    @property
    def any(self) -> bool:
        return self.totp or self.passkeys > 0

    @property
    def names(self) -> list[str]:
        return (["totp"] if self.totp else []) + (["passkey"] if self.passkeys else [])


async def factors_of(session: AsyncSession, staff_id: str) -> Factors:
    credential = await session.get(StaffCredential, staff_id)
    passkeys = await session.scalar(
        select(func.count()).select_from(StaffPasskey).where(StaffPasskey.staff_id == staff_id)
    )
    codes = await session.scalar(
        select(func.count())
        .select_from(StaffRecoveryCode)
        .where(StaffRecoveryCode.staff_id == staff_id, StaffRecoveryCode.used_at.is_(None))
    )
    totp = credential is not None and credential.totp_secret_encrypted is not None
    return Factors(totp, int(passkeys or 0), int(codes or 0))


async def credential_for_update(session: AsyncSession, staff_id: str) -> StaffCredential:
    """The staff member's credential row, locked for this transaction; made when missing."""
    credential = await session.scalar(
        select(StaffCredential).where(StaffCredential.staff_id == staff_id).with_for_update()
    )
    if credential is None:
        credential = StaffCredential(staff_id=staff_id)
        session.add(credential)
        await session.flush()
    return credential


async def clear_identity(session: AsyncSession, staff_id: str) -> None:
    """Forget the password and every factor (a reset); failures and lock go too."""
    await session.execute(
        update(StaffCredential)
        .where(StaffCredential.staff_id == staff_id)
        .values(
            password_hash=None,
            password_set_at=None,
            totp_secret_encrypted=None,
            totp_enrolled_at=None,
            totp_last_step=None,
            locked_until=None,
        )
    )
    await session.execute(delete(StaffPasskey).where(StaffPasskey.staff_id == staff_id))
    await session.execute(delete(StaffRecoveryCode).where(StaffRecoveryCode.staff_id == staff_id))
    await session.execute(delete(StaffSignInFailure).where(StaffSignInFailure.staff_id == staff_id))


# Invites.


@dataclass(frozen=True, slots=True)
class IssuedInvite:
    url: str = field(repr=False)  # a credential: shown once, never logged
    expires_at: datetime


async def issue_invite(
    session: AsyncSession, runtime: Runtime, staff_id: str, now: datetime
) -> IssuedInvite:
    """A new invite for `staff_id` (earlier unused ones are revoked), in the caller's
    transaction."""
    await revoke_invites(session, staff_id, now)
    token = random_token(43)
    expires_at = now + INVITE_LIFETIME
    session.add(
        StaffInvite(
            id=new_id("inv"),
            staff_id=staff_id,
            token_hash=runtime.crypto.hash_secret(token),
            created_at=now,
            expires_at=expires_at,
        )
    )
    return IssuedInvite(runtime.settings.base_url + INVITE_PATH + token, expires_at)


async def revoke_invites(session: AsyncSession, staff_id: str, now: datetime) -> None:
    await session.execute(
        update(StaffInvite)
        .where(
            StaffInvite.staff_id == staff_id,
            StaffInvite.used_at.is_(None),
            StaffInvite.revoked_at.is_(None),
        )
        .values(revoked_at=now)
    )


class InviteUnusable(Exception):
    """A used, expired, revoked or unknown invite, or one of a deactivated person; the
    answer never says which."""


@dataclass(frozen=True, slots=True)
class OpenInvite:
    invite_id: str
    staff_id: str
    email: str
    expires_at: datetime


async def open_invite(runtime: Runtime, token: str) -> OpenInvite:
    """The invite behind `token` when it can still be used (reading consumes nothing)."""
    if not token or len(token) > 128:
        raise InviteUnusable
    async with runtime.db.read() as session:
        row = (
            await session.execute(
                select(StaffInvite, StaffMember)
                .join(StaffMember, StaffMember.id == StaffInvite.staff_id)
                .where(StaffInvite.token_hash.in_(runtime.crypto.hash_candidates(token)))
            )
        ).first()
    if row is None:
        raise InviteUnusable
    invite, staff = row
    if (
        invite.used_at is not None
        or invite.revoked_at is not None
        or invite.expires_at <= runtime.now()
        or staff.status != "active"
    ):
        raise InviteUnusable
    return OpenInvite(invite.id, staff.id, staff.email, invite.expires_at)


async def accept_invite(
    session: AsyncSession, runtime: Runtime, invite: OpenInvite, password_hash: str, now: datetime
) -> bool:
    """Use the invite and set the password, in the caller's transaction; False when the
    invite was used (or revoked) meanwhile. The caller audits `staff.invite_used`."""
    used = await session.execute(
        update(StaffInvite)
        .where(
            StaffInvite.id == invite.invite_id,
            StaffInvite.used_at.is_(None),
            StaffInvite.revoked_at.is_(None),
            StaffInvite.expires_at > now,
        )
        .values(used_at=now)
    )
    if not used.rowcount:  # type: ignore[attr-defined]
        return False
    credential = await credential_for_update(session, invite.staff_id)
    credential.password_hash = password_hash
    credential.password_set_at = now
    return True


async def new_password_hash(password: str, email: str) -> str:
    """Check the policy (400 naming `password`) and hash."""
    return await passwords.hash_password(passwords.check_password(password, email))
