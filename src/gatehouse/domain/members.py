"""Members and ownership (docs/reference/tenant-api.md §5.6, §5.8; docs/reference/tenant-api.md §5).

An application has at most 20 members. The original applicant joins with
role `applicant`, everyone added later with role `teammate`. Ownership is
tracked apart from the roles: the first owner is the original applicant, and
removing the current owner needs a handover to another existing member.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gatehouse.errors import FAILED_PRECONDITION, GatehouseError

MAX_MEMBERS = 20
ROLE_APPLICANT = "applicant"
ROLE_TEAMMATE = "teammate"


class MemberRuleError(GatehouseError):
    """A membership rule refused the change (answered 400 failed-precondition)."""

    def __init__(self, message: str) -> None:
        super().__init__(FAILED_PRECONDITION, message)


@dataclass(frozen=True, slots=True)
class Roster:
    """What the rules need to know about an application's membership."""

    members: Sequence[tuple[str, str]]  # (uid, email) pairs
    owner_uid: str | None
    applicant_email: str | None

    def uid_of(self, email: str) -> str | None:
        for uid, member_email in self.members:
            if member_email == email:
                return uid
        return None

    def has(self, uid: str) -> bool:
        return any(member_uid == uid for member_uid, _ in self.members)

    def current_owner(self) -> str | None:
        """The stored owner while still a member, else the original applicant's member."""
        if self.owner_uid is not None and self.has(self.owner_uid):
            return self.owner_uid
        if self.applicant_email is not None:
            return self.uid_of(self.applicant_email)
        return None


def role_for(email: str, applicant_email: str | None) -> str:
    """`applicant` for the original applicant, `teammate` for anyone else."""
    return ROLE_APPLICANT if email == applicant_email else ROLE_TEAMMATE


def check_room_for_one_more(member_count: int) -> None:
    """The 20-member cap (docs/reference/tenant-api.md §5.7, §5.1 rule 4)."""
    if member_count >= MAX_MEMBERS:
        raise MemberRuleError(f"The application already has {MAX_MEMBERS} members.")


def plan_removal(roster: Roster, uid: str, new_owner_uid: str | None) -> str | None:
    """Validate removing `uid`; returns the owner afterwards (docs/reference/tenant-api.md §5.8).

    Removing a nonmember (also a repeat removal) is refused; removing the
    current owner requires `new_owner_uid` naming another existing member.
    """
    if not roster.has(uid):
        raise MemberRuleError("No member with this uid.")
    owner = roster.current_owner()
    if uid != owner:
        return owner
    if not new_owner_uid:
        raise MemberRuleError("Removing the current owner requires newOwnerUid.")
    if new_owner_uid == uid or not roster.has(new_owner_uid):
        raise MemberRuleError("newOwnerUid must name another existing member.")
    return new_owner_uid


def link_recipient(roster: Roster, email: str | None) -> str:
    """The member a reissued sign-in link is for (docs/reference/tenant-api.md §5.6).

    `email` (already normalised) must name an existing member; None selects
    the current owner, falling back to the original applicant.
    """
    if email is not None:
        uid = roster.uid_of(email)
        if uid is None:
            raise MemberRuleError("The email does not name an existing member.")
        return uid
    owner = roster.current_owner()
    if owner is None:
        raise MemberRuleError(
            "The application has no applicant member; add the member first and name it."
        )
    return owner
