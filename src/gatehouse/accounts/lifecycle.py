"""The staff lifecycle: invite, list, change a role, deactivate, reactivate, reset
(docs/reference/staff-api.md §3 and §9, docs/staff-identity.md).

admin+ manage staff; accounts with the admin or super_admin role, and those roles, are
managed by super_admin only. Nobody changes, deactivates or resets their own account here.
Deactivation ends every session and revokes every token at once; a role change and a reset
end every session; a reset also clears the password and every factor and issues a new invite.
"""

from __future__ import annotations

import secrets
import string

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.accounts.identity import clear_identity, issue_invite, revoke_invites
from gatehouse.accounts.schemas import (
    Invite,
    StaffList,
    StaffMemberView,
    staff_view,
)
from gatehouse.accounts.sessions import end_all_sessions, end_flows_of
from gatehouse.accounts.tokens import first_token, revoke_all_tokens
from gatehouse.audit.context import WriteContext
from gatehouse.domain.normalize import InvalidEmail, email_identity
from gatehouse.domain.principals import STAFF_PREFIX, STAFF_ROLES, Role, StaffPrincipal, role_rank
from gatehouse.errors import (
    ALREADY_EXISTS,
    GatehouseError,
    failed_precondition,
    invalid_argument,
    not_found,
    permission_denied,
)
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import StaffMember
from gatehouse.storage.tables.staff_identity import StaffCredential, StaffPasskey
from gatehouse.timeutil import format_ts

PRIVILEGED_ROLES: tuple[str, ...] = (Role.ADMIN, Role.SUPER_ADMIN)
_ID_ALPHABET = string.ascii_lowercase + string.digits


def role_needed_for(role: str) -> str:
    """The least role that may create or manage an account with `role`."""
    return Role.SUPER_ADMIN if role in PRIVILEGED_ROLES else Role.ADMIN


def may_manage(actor_role: str, role: str) -> bool:
    return role_rank(actor_role) >= role_rank(role_needed_for(role))


def check_role(role: object) -> str:
    if not isinstance(role, str) or role not in STAFF_ROLES:
        raise invalid_argument(
            f"role must be one of {', '.join(STAFF_ROLES)}.", "role", "unknown role"
        )
    return role


def check_staff_input(email: object, role: object) -> tuple[str, str]:
    """The normalized email and the role, or 400 invalid-argument naming the field."""
    try:
        normalized = email_identity(email)
    except InvalidEmail as exc:
        raise invalid_argument(f"email {exc}.", "email", str(exc)) from None
    return normalized, check_role(role)


async def create_staff_member(
    runtime: Runtime, email: object, role: object, ctx: WriteContext
) -> dict[str, str]:
    """201 `{staffId, email, role, token, inviteUrl, inviteExpiresAt}`: the token (a
    personal API token) and the invite link are shown this once. 400 for a bad email or
    role, 409 already-exists for an email in use. The caller checks who may create `role`."""
    normalized, checked_role = check_staff_input(email, role)
    staff_id = STAFF_PREFIX + "".join(secrets.choice(_ID_ALPHABET) for _ in range(20))
    duplicate = GatehouseError(ALREADY_EXISTS, "A staff member with this email exists.")
    try:
        async with runtime.db.write() as session:
            existing = await session.scalar(
                select(StaffMember.id).where(StaffMember.email == normalized)
            )
            if existing is not None:
                raise duplicate
            token, token_row = first_token(runtime, staff_id, ctx.now)
            session.add(
                StaffMember(
                    id=staff_id,
                    email=normalized,
                    role=checked_role,
                    status="active",
                    created_at=ctx.now,
                )
            )
            session.add(token_row)
            invite = await issue_invite(session, runtime, staff_id, ctx.now)
            ctx.audit(session, "staff.created", staff_id)
    except IntegrityError:
        # Two concurrent creations with one email: the unique index decides.
        raise duplicate from None
    return {
        "staffId": staff_id,
        "email": normalized,
        "role": checked_role,
        "token": token,
        "inviteUrl": invite.url,
        "inviteExpiresAt": format_ts(invite.expires_at) or "",
    }


async def list_staff(runtime: Runtime) -> StaffList:
    """`{data: [{staffId, email, role, status, createdAt, lastSignInAt, mfa, factors}]}`,
    newest first."""
    passkeys = (
        select(StaffPasskey.staff_id, func.count().label("n"))
        .group_by(StaffPasskey.staff_id)
        .subquery()
    )
    async with runtime.db.read() as session:
        rows = (
            await session.execute(
                select(StaffMember, StaffCredential, passkeys.c.n)
                .outerjoin(StaffCredential, StaffCredential.staff_id == StaffMember.id)
                .outerjoin(passkeys, passkeys.c.staff_id == StaffMember.id)
                .order_by(StaffMember.created_at.desc(), StaffMember.id.desc())
            )
        ).all()
    return {"data": [staff_view(m, c, int(n or 0)) for m, c, n in rows]}


async def _managed(
    session: AsyncSession, actor: StaffPrincipal, staff_id: str, new_role: str | None = None
) -> StaffMember:
    """The target row, locked; 404, 403 (privileged account or role), or 400 (oneself)."""
    member = await session.scalar(
        select(StaffMember).where(StaffMember.id == staff_id).with_for_update()
    )
    if member is None:
        raise not_found("No such staff member.")
    for role in (member.role, new_role):
        if role is not None and not may_manage(actor.role, role):
            raise permission_denied(
                f"Managing an account with the {role} role needs the {role_needed_for(role)} role."
            )
    if member.id == actor.staff_id:
        raise failed_precondition("You cannot change your own account here.")
    return member


async def _view_of(session: AsyncSession, member: StaffMember) -> StaffMemberView:
    await session.flush()
    credential = await session.get(StaffCredential, member.id)
    passkeys = await session.scalar(
        select(func.count()).select_from(StaffPasskey).where(StaffPasskey.staff_id == member.id)
    )
    return staff_view(member, credential, int(passkeys or 0))


async def change_role(
    runtime: Runtime, actor: StaffPrincipal, staff_id: str, role: object, ctx: WriteContext
) -> StaffMemberView:
    """PATCH `{role}`: a change ends every session of the person."""
    new_role = check_role(role)
    async with runtime.db.write() as session:
        member = await _managed(session, actor, staff_id, new_role)
        if member.role != new_role:
            member.role = new_role
            await end_all_sessions(session, member.id, ctx.now)
            ctx.audit(session, "staff.role_changed", member.id)
        return await _view_of(session, member)


async def deactivate(
    runtime: Runtime, actor: StaffPrincipal, staff_id: str, ctx: WriteContext
) -> StaffMemberView:
    """Status `deactivated`: every session ends, every token and unused invite is revoked."""
    async with runtime.db.write() as session:
        member = await _managed(session, actor, staff_id)
        member.status = "deactivated"
        await end_all_sessions(session, member.id, ctx.now)
        await end_flows_of(session, member.id, ctx.now)
        await revoke_all_tokens(session, member.id, ctx.now)
        await revoke_invites(session, member.id, ctx.now)
        ctx.audit(session, "staff.deactivated", member.id)
        return await _view_of(session, member)


async def reactivate(
    runtime: Runtime, actor: StaffPrincipal, staff_id: str, ctx: WriteContext
) -> StaffMemberView:
    """Status `active` again; revoked tokens stay revoked and ended sessions ended."""
    async with runtime.db.write() as session:
        member = await _managed(session, actor, staff_id)
        member.status = "active"
        ctx.audit(session, "staff.reactivated", member.id)
        return await _view_of(session, member)


async def reset(
    runtime: Runtime, actor: StaffPrincipal, staff_id: str, ctx: WriteContext
) -> Invite:
    """Clear the password and every factor, end every session, and issue a new invite:
    `{inviteUrl, inviteExpiresAt}`. A deactivated account is reactivated first (400)."""
    async with runtime.db.write() as session:
        member = await _managed(session, actor, staff_id)
        if member.status != "active":
            raise failed_precondition("Reactivate the account before resetting it.")
        await clear_identity(session, member.id)
        await end_all_sessions(session, member.id, ctx.now)
        await end_flows_of(session, member.id, ctx.now)
        invite = await issue_invite(session, runtime, member.id, ctx.now)
        ctx.audit(session, "staff.reset", member.id)
    return {"inviteUrl": invite.url, "inviteExpiresAt": format_ts(invite.expires_at) or ""}
