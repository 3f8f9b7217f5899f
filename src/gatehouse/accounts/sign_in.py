"""Signing in to the dashboard (docs/staff-identity.md "Signing in").

Step one takes an email and a password; step two a TOTP code, a recovery code or a passkey
(accounts/passkeys.py). A staff member without a second factor enrols TOTP before the first
session, unless GATEHOUSE_STAFF_MFA=off. Every failure raises the one `SignInFailed`: an
unknown email, a wrong password, a wrong code, a deactivated or a locked account look alike
(and cost the same argon2 work). Five failures of one account within 15 minutes lock it for
15 minutes; each failure is audited as `dashboard.sign_in_failed`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.accounts import passwords, totp
from gatehouse.accounts.identity import (
    InviteUnusable,
    OpenInvite,
    accept_invite,
    as_staff,
    credential_for_update,
    factors_of,
    mfa_required,
    new_password_hash,
    revoke_invites,
)
from gatehouse.accounts.sessions import (
    Flow,
    OpenedSession,
    end_flow,
    open_session,
    save_flow_payload,
    start_flow,
)
from gatehouse.audit.context import WriteContext
from gatehouse.domain.normalize import normalize_email
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import StaffMember
from gatehouse.storage.tables.staff_identity import (
    StaffCredential,
    StaffRecoveryCode,
    StaffSignInFailure,
)

LOCK_AFTER = 5
FAILURE_WINDOW = timedelta(minutes=15)
LOCK_FOR = timedelta(minutes=15)
ANONYMOUS = "anonymous"
UNKNOWN_ACCOUNT = "unknown"


class SignInFailed(Exception):
    """Any failed sign-in step; `flow_ended` when the step cannot be retried (a lock)."""

    def __init__(self, flow_ended: bool = False) -> None:
        super().__init__("sign-in failed")
        self.flow_ended = flow_ended


@dataclass(frozen=True, slots=True)
class StepResult:
    """Where a successful step leads: a session, or a flow (second factor or enrolment)."""

    opened: OpenedSession | None = None
    flow_cookie: str | None = field(default=None, repr=False)
    flow: Flow | None = None


def locked(credential: StaffCredential | None, now: datetime) -> bool:
    return (
        credential is not None
        and credential.locked_until is not None
        and credential.locked_until > now
    )


async def record_failure(runtime: Runtime, staff_id: str | None, ctx: WriteContext) -> bool:
    """Audit a failed attempt and count it against the account; True when the account is
    (now) locked. Failures while locked are audited but do not extend the lock."""
    async with runtime.db.write() as session:
        ctx.audit(session, "dashboard.sign_in_failed", staff_id or UNKNOWN_ACCOUNT)
        if staff_id is None:
            return False
        credential = await credential_for_update(session, staff_id)
        if locked(credential, ctx.now):
            return True
        session.add(StaffSignInFailure(staff_id=staff_id, at=ctx.now))
        await session.flush()
        recent = await session.scalar(
            select(func.count())
            .select_from(StaffSignInFailure)
            .where(
                StaffSignInFailure.staff_id == staff_id,
                StaffSignInFailure.at > ctx.now - FAILURE_WINDOW,
            )
        )
        if int(recent or 0) >= LOCK_AFTER:
            credential.locked_until = ctx.now + LOCK_FOR
            ctx.audit(session, "staff.locked", staff_id)
            return True
    return False


async def complete_sign_in(
    session: AsyncSession,
    runtime: Runtime,
    staff_id: str,
    ctx: WriteContext,
    method: str,
    flow: Flow | None,
) -> OpenedSession:
    """End the flow (refusing a second completion), forget failures, open the session."""
    if flow is not None and not await end_flow(session, flow.flow_id, ctx.now):
        raise SignInFailed(flow_ended=True)
    await session.execute(delete(StaffSignInFailure).where(StaffSignInFailure.staff_id == staff_id))
    return await open_session(session, runtime, staff_id, as_staff(ctx, staff_id), method)


async def _next_step(
    session: AsyncSession, runtime: Runtime, staff_id: str, next_path: str, ctx: WriteContext
) -> StepResult:
    """After a password: a second-factor flow, an enrolment flow, or (MFA off and nothing
    enrolled) a session."""
    factors = await factors_of(session, staff_id)
    if factors.any:
        cookie, flow = start_flow(session, runtime, "second_factor", staff_id, next_path, ctx.now)
        return StepResult(flow_cookie=cookie, flow=flow)
    if mfa_required(runtime.settings):
        cookie, flow = start_flow(session, runtime, "enrol", staff_id, next_path, ctx.now)
        return StepResult(flow_cookie=cookie, flow=flow)
    opened = await complete_sign_in(session, runtime, staff_id, ctx, "password", None)
    return StepResult(opened=opened)


async def password_step(
    runtime: Runtime, email: str, password: str, next_path: str, ctx: WriteContext
) -> StepResult:
    """Step one. Raises SignInFailed for every kind of failure."""
    normalized = normalize_email(email)
    row = None
    if normalized is not None:
        async with runtime.db.read() as session:
            row = (
                await session.execute(
                    select(StaffMember, StaffCredential)
                    .outerjoin(StaffCredential, StaffCredential.staff_id == StaffMember.id)
                    .where(StaffMember.email == normalized)
                )
            ).first()
    staff, credential = (row[0], row[1]) if row is not None else (None, None)
    stored = credential.password_hash if credential is not None else None
    matches = await passwords.verify_password(password[: passwords.MAX_LENGTH], stored)
    if staff is None or not matches or staff.status != "active" or locked(credential, ctx.now):
        ended = await record_failure(runtime, staff.id if staff is not None else None, ctx)
        raise SignInFailed(flow_ended=ended)
    async with runtime.db.write() as session:
        # Locked or deactivated since the read: the same failure.
        current = await credential_for_update(session, staff.id)
        member = await session.get(StaffMember, staff.id)
        if member is None or member.status != "active" or locked(current, ctx.now):
            raise SignInFailed
        return await _next_step(session, runtime, staff.id, next_path, ctx)


async def code_step(runtime: Runtime, flow: Flow, code: str, ctx: WriteContext) -> OpenedSession:
    """Step two with a TOTP code or a recovery code."""
    staff_id = flow.staff_id
    if staff_id is None or flow.purpose != "second_factor":
        raise SignInFailed(flow_ended=True)
    async with runtime.db.write() as session:
        credential = await credential_for_update(session, staff_id)
        member = await session.get(StaffMember, staff_id)
        if member is not None and member.status == "active" and not locked(credential, ctx.now):
            method = await _use_code(session, runtime, credential, code.strip(), ctx.now)
            if method is not None:
                return await complete_sign_in(session, runtime, staff_id, ctx, method, flow)
    ended = await record_failure(runtime, staff_id, ctx)
    if ended:
        async with runtime.db.write() as session:
            await end_flow(session, flow.flow_id, ctx.now)
    raise SignInFailed(flow_ended=ended)


async def _use_code(
    session: AsyncSession,
    runtime: Runtime,
    credential: StaffCredential,
    code: str,
    now: datetime,
) -> str | None:
    """Accept a TOTP code (recording its step) or spend a recovery code: the method, or None."""
    compact = totp.compact_code(code)
    if totp.looks_like_totp(compact):
        if credential.totp_secret_encrypted is None:
            return None
        secret = runtime.crypto.decrypt_text(credential.totp_secret_encrypted)
        step = totp.matching_step(secret, compact, now, credential.totp_last_step)
        if step is None:
            return None
        credential.totp_last_step = step
        return "totp"
    normalized = totp.normalize_recovery_code(code)
    if normalized is None:
        return None
    digests = runtime.crypto.hash_candidates(
        totp.recovery_digest_input(credential.staff_id, normalized)
    )
    spent = await session.execute(
        update(StaffRecoveryCode)
        .where(
            StaffRecoveryCode.staff_id == credential.staff_id,
            StaffRecoveryCode.code_hash.in_(digests),
            StaffRecoveryCode.used_at.is_(None),
        )
        .values(used_at=now)
    )
    return "recovery_code" if spent.rowcount else None  # type: ignore[attr-defined]


# Invites and enrolment.


async def use_invite(
    runtime: Runtime, invite: OpenInvite, password: str, ctx: WriteContext
) -> StepResult:
    """Set the password through an invite (400 naming `password` when the policy refuses
    it, the invite kept); then enrolment, or a session when MFA is off."""
    password_hash = await new_password_hash(password, invite.email)
    async with runtime.db.write() as session:
        if not await accept_invite(session, runtime, invite, password_hash, ctx.now):
            raise InviteUnusable
        as_staff(ctx, invite.staff_id).audit(session, "staff.invite_used", invite.invite_id)
        return await _next_step(session, runtime, invite.staff_id, "/dashboard", ctx)


@dataclass(frozen=True, slots=True)
class Enrolment:
    """What the enrolment page shows: the secret as text and as a QR code."""

    secret: str = field(repr=False)
    uri: str = field(repr=False)
    qr_svg: str = field(repr=False)

    @property
    def grouped_secret(self) -> str:
        return totp.grouped(self.secret)


async def enrolment_of(runtime: Runtime, flow: Flow, email: str) -> Enrolment:
    """The TOTP secret being enrolled in this flow (made on first sight, kept sealed)."""
    secret = flow.payload.get("totp_secret")
    if not isinstance(secret, str):
        secret = totp.new_secret()
        await save_flow_payload(runtime, flow.flow_id, {**flow.payload, "totp_secret": secret})
    uri = totp.provisioning_uri(secret, email)
    return Enrolment(secret, uri, totp.qr_svg(uri))


async def finish_enrolment(
    runtime: Runtime, flow: Flow, code: str, ctx: WriteContext
) -> tuple[OpenedSession, list[str]]:
    """Confirm the enrolment with a first code: the secret is stored sealed, ten recovery
    codes are made (returned once), and the first session opens. A wrong code raises
    SignInFailed (the flow goes on)."""
    staff_id = flow.staff_id
    secret = flow.payload.get("totp_secret")
    if staff_id is None or flow.purpose != "enrol" or not isinstance(secret, str):
        raise SignInFailed(flow_ended=True)
    step = totp.matching_step(secret, totp.compact_code(code), ctx.now, None)
    if step is None:
        raise SignInFailed
    acting = as_staff(ctx, staff_id)
    async with runtime.db.write() as session:
        member = await session.get(StaffMember, staff_id)
        if member is None or member.status != "active":
            raise SignInFailed(flow_ended=True)
        credential = await credential_for_update(session, staff_id)
        credential.totp_secret_encrypted = runtime.crypto.encrypt_text(secret)
        credential.totp_enrolled_at = ctx.now
        credential.totp_last_step = step
        codes = await replace_recovery_codes(session, runtime, staff_id, ctx.now)
        acting.audit(session, "staff.factor_enrolled.totp", staff_id)
        opened = await complete_sign_in(session, runtime, staff_id, ctx, "totp", flow)
    return opened, codes


async def replace_recovery_codes(
    session: AsyncSession, runtime: Runtime, staff_id: str, now: datetime
) -> list[str]:
    """Ten new recovery codes (the old ones stop working); the codes, to show once."""
    await session.execute(delete(StaffRecoveryCode).where(StaffRecoveryCode.staff_id == staff_id))
    codes = totp.new_recovery_codes()
    for code in codes:
        normalized = totp.normalize_recovery_code(code) or ""
        session.add(
            StaffRecoveryCode(
                id=new_id("rcv"),
                staff_id=staff_id,
                code_hash=runtime.crypto.hash_secret(
                    totp.recovery_digest_input(staff_id, normalized)
                ),
                created_at=now,
            )
        )
    return codes


async def renew_recovery_codes(runtime: Runtime, staff_id: str, ctx: WriteContext) -> list[str]:
    """From the account page: new codes, shown once; audited."""
    async with runtime.db.write() as session:
        codes = await replace_recovery_codes(session, runtime, staff_id, ctx.now)
        ctx.audit(session, "staff.recovery_codes_renewed", staff_id)
    return codes


async def set_password_directly(
    runtime: Runtime, staff_id: str, password: str, ctx: WriteContext
) -> None:
    """Set a password without an invite: `gatehouse demo` with GATEHOUSE_STAFF_MFA=off
    (development only); the staff member's unused invites are revoked."""
    password_hash = await new_password_hash(password, "")
    async with runtime.db.write() as session:
        credential = await credential_for_update(session, staff_id)
        credential.password_hash = password_hash
        credential.password_set_at = ctx.now
        await revoke_invites(session, staff_id, ctx.now)
        ctx.audit(session, "staff.password_set", staff_id)
