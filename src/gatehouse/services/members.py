"""Members and sign-in link reissue (spec 1 §4.6-§4.8; CONTRACT §1.3).

Every change locks the application row first (`FOR UPDATE` on PostgreSQL;
the SQLite write transaction serializes writers), so the 20-member cap and
the ownership handover hold under concurrent calls.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.access import Operation
from gatehouse.domain.identity import allowed_redirect
from gatehouse.domain.members import (
    MemberRuleError,
    Roster,
    check_room_for_one_more,
    link_recipient,
    plan_removal,
    role_for,
)
from gatehouse.domain.normalize import normalize_email
from gatehouse.http.errors import failed_precondition
from gatehouse.ids import new_id
from gatehouse.services import applications_repo as repo
from gatehouse.services.application_reads import get_tenant_application
from gatehouse.services.guards import TenantWrite, enforce
from gatehouse.services.login_links import mint_link
from gatehouse.services.views import member_view
from gatehouse.storage.tables.applications import Application, Member


def _roster(application: Application, members: list[Member]) -> Roster:
    return Roster(
        [(member.id, member.email) for member in members],
        application.owner_uid,
        application.applicant_email,
    )


async def add_member(
    session: AsyncSession, write: TenantWrite, client_id: str, email: str
) -> tuple[int, dict[str, Any]]:
    """POST …/members: 201 with a new member, 200 with the existing one (joinedAt kept).

    `email` is already normalised by the caller.
    """
    application = await get_tenant_application(session, write.tenant_id, client_id, for_update=True)
    enforce(Operation.ADD_MEMBER, write, application)
    members = await repo.members_of(session, application.id)
    existing = next((member for member in members if member.email == email), None)
    if existing is not None:
        write.audit(session, "member.add", existing.id, application.id)
        return 200, member_view(existing)
    try:
        check_room_for_one_more(len(members))
    except MemberRuleError as exc:
        raise failed_precondition(str(exc)) from None
    member = Member(
        id=new_id("mem"),
        application_id=application.id,
        email=email,
        role=role_for(email, application.applicant_email),
        joined_at=write.now,
    )
    session.add(member)
    application.updated_at = write.now
    write.audit(session, "member.add", member.id, application.id)
    return 201, member_view(member)


async def remove_member(
    session: AsyncSession,
    write: TenantWrite,
    client_id: str,
    uid: str,
    new_owner_uid: str | None,
) -> None:
    """DELETE …/members/{uid}: 204; hands over ownership; ends the member's access."""
    application = await get_tenant_application(session, write.tenant_id, client_id, for_update=True)
    enforce(Operation.REMOVE_MEMBER, write, application)
    members = await repo.members_of(session, application.id)
    try:
        owner_after = plan_removal(_roster(application, members), uid, new_owner_uid)
    except MemberRuleError as exc:
        raise failed_precondition(str(exc)) from None
    await session.execute(
        delete(Member).where(Member.id == uid, Member.application_id == application.id)
    )
    application.owner_uid = owner_after
    application.updated_at = write.now
    await repo.revoke_unused_links(session, application.id, write.now, member_id=uid)
    await repo.end_portal_sessions(session, application.id, write.now, member_id=uid)
    write.audit(session, "member.remove", uid, application.id)


async def reissue_login_session(
    session: AsyncSession,
    write: TenantWrite,
    client_id: str,
    email: object,
    redirect_path: object,
) -> dict[str, Any]:
    """POST …/login-sessions: a fresh link for a member or the owner (spec 1 §4.6)."""
    application = await get_tenant_application(session, write.tenant_id, client_id, for_update=True)
    enforce(Operation.MINT_LINK, write, application)
    wanted: str | None = None
    if email is not None:
        wanted = normalize_email(email)
        if wanted is None:
            raise failed_precondition("The email is not valid.")
    members = await repo.members_of(session, application.id)
    try:
        member_id = link_recipient(_roster(application, members), wanted)
    except MemberRuleError as exc:
        raise failed_precondition(str(exc)) from None
    link = mint_link(
        session,
        write.runtime,
        application_id=application.id,
        member_id=member_id,
        redirect_path=allowed_redirect(redirect_path),
        now=write.now,
    )
    write.audit(session, "login_session.create", member_id, application.id)
    return link.view(application.id)
