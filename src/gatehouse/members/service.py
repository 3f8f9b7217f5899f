"""Members and sign-in link reissue (docs/reference/tenant-api.md §5.6-§5.8).

Every change locks the application row first (`FOR UPDATE` on PostgreSQL;
the SQLite write transaction serializes writers), so the 20-member cap and
the ownership handover hold under concurrent calls.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import applications
from gatehouse.applications import Member as MemberView
from gatehouse.applications import (
    SignInLink,
    enforce,
    get_tenant_application,
    member_view,
    mint_link,
)
from gatehouse.audit.context import WriteContext
from gatehouse.domain.access import Operation
from gatehouse.domain.identity import allowed_redirect
from gatehouse.domain.members import (
    Roster,
    check_room_for_one_more,
    link_recipient,
    plan_removal,
    role_for,
)
from gatehouse.domain.normalize import normalize_email
from gatehouse.domain.principals import TenantPrincipal
from gatehouse.errors import failed_precondition
from gatehouse.ids import new_id
from gatehouse.members.queries import delete_member
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Member


def _roster(application: Application, members: list[Member]) -> Roster:
    return Roster(
        [(member.id, member.email) for member in members],
        application.owner_uid,
        application.applicant_email,
    )


async def add_member(
    session: AsyncSession, ctx: WriteContext, tenant: TenantPrincipal, client_id: str, email: str
) -> tuple[int, MemberView]:
    """POST …/members: 201 with a new member, 200 with the existing one (joinedAt kept).

    `email` is already normalised by the caller.
    """
    application = await get_tenant_application(
        session, tenant.tenant_id, client_id, for_update=True
    )
    enforce(Operation.ADD_MEMBER, tenant, application)
    members = await applications.members_of(session, application.id)
    existing = next((member for member in members if member.email == email), None)
    if existing is not None:
        ctx.audit(session, "member.add", existing.id, application.id)
        return 200, member_view(existing)
    check_room_for_one_more(len(members))
    member = Member(
        id=new_id("mem"),
        application_id=application.id,
        email=email,
        role=role_for(email, application.applicant_email),
        joined_at=ctx.now,
    )
    session.add(member)
    application.updated_at = ctx.now
    ctx.audit(session, "member.add", member.id, application.id)
    return 201, member_view(member)


async def remove_member(
    session: AsyncSession,
    ctx: WriteContext,
    tenant: TenantPrincipal,
    client_id: str,
    uid: str,
    new_owner_uid: str | None,
) -> None:
    """DELETE …/members/{uid}: 204; hands over ownership; ends the member's access."""
    application = await get_tenant_application(
        session, tenant.tenant_id, client_id, for_update=True
    )
    enforce(Operation.REMOVE_MEMBER, tenant, application)
    members = await applications.members_of(session, application.id)
    owner_after = plan_removal(_roster(application, members), uid, new_owner_uid)
    await delete_member(session, application.id, uid)
    application.owner_uid = owner_after
    application.updated_at = ctx.now
    await applications.revoke_unused_links(session, application.id, ctx.now, member_id=uid)
    await applications.end_portal_sessions(session, application.id, ctx.now, member_id=uid)
    ctx.audit(session, "member.remove", uid, application.id)


async def reissue_login_session(
    session: AsyncSession,
    runtime: Runtime,
    ctx: WriteContext,
    tenant: TenantPrincipal,
    client_id: str,
    email: object,
    redirect_path: object,
) -> SignInLink:
    """POST …/login-sessions: a fresh link for a member or the owner
    (docs/reference/tenant-api.md §5.6)."""
    application = await get_tenant_application(
        session, tenant.tenant_id, client_id, for_update=True
    )
    enforce(Operation.MINT_LINK, tenant, application)
    wanted: str | None = None
    if email is not None:
        wanted = normalize_email(email)
        if wanted is None:
            raise failed_precondition("The email is not valid.")
    members = await applications.members_of(session, application.id)
    member_id = link_recipient(_roster(application, members), wanted)
    link = mint_link(
        session,
        runtime,
        application_id=application.id,
        member_id=member_id,
        redirect_path=allowed_redirect(redirect_path),
        now=ctx.now,
    )
    ctx.audit(session, "login_session.create", member_id, application.id)
    return link.view(application.id)
