"""Members and ownership (docs/reference/tenant-api.md §5.6, §5.8;
docs/reference/tenant-api.md §5).
"""

from __future__ import annotations

import pytest

from gatehouse.domain.members import (
    MAX_MEMBERS,
    MemberRuleError,
    Roster,
    check_room_for_one_more,
    link_recipient,
    plan_removal,
    role_for,
)

ROSTER = Roster(
    [("m1", "ann@x.test"), ("m2", "bob@x.test"), ("m3", "cy@x.test")], "m1", "ann@x.test"
)


def test_roles() -> None:
    assert role_for("ann@x.test", "ann@x.test") == "applicant"
    assert role_for("bob@x.test", "ann@x.test") == "teammate"
    assert role_for("bob@x.test", None) == "teammate"


def test_cap_of_twenty() -> None:
    assert MAX_MEMBERS == 20
    check_room_for_one_more(19)
    with pytest.raises(MemberRuleError):
        check_room_for_one_more(20)


def test_removing_a_teammate_keeps_the_owner() -> None:
    assert plan_removal(ROSTER, "m2", None) == "m1"


def test_removing_a_nonmember_is_refused() -> None:
    with pytest.raises(MemberRuleError):
        plan_removal(ROSTER, "m9", None)


def test_removing_the_owner_needs_a_handover_to_another_member() -> None:
    with pytest.raises(MemberRuleError):
        plan_removal(ROSTER, "m1", None)
    with pytest.raises(MemberRuleError):
        plan_removal(ROSTER, "m1", "")
    with pytest.raises(MemberRuleError):
        plan_removal(ROSTER, "m1", "m1")
    with pytest.raises(MemberRuleError):
        plan_removal(ROSTER, "m1", "m9")
    assert plan_removal(ROSTER, "m1", "m3") == "m3"


def test_owner_falls_back_to_the_original_applicant() -> None:
    roster = Roster(ROSTER.members, None, "ann@x.test")
    assert roster.current_owner() == "m1"
    with pytest.raises(MemberRuleError):
        plan_removal(roster, "m1", None)
    # A stored owner wins over the applicant.
    assert Roster(ROSTER.members, "m2", "ann@x.test").current_owner() == "m2"


def test_the_sole_member_cannot_be_removed() -> None:
    roster = Roster([("m1", "ann@x.test")], "m1", "ann@x.test")
    with pytest.raises(MemberRuleError):
        plan_removal(roster, "m1", None)


def test_link_recipient_by_email_or_owner() -> None:
    assert link_recipient(ROSTER, "bob@x.test") == "m2"
    assert link_recipient(ROSTER, None) == "m1"
    assert link_recipient(Roster(ROSTER.members, "m3", "ann@x.test"), None) == "m3"
    with pytest.raises(MemberRuleError):
        link_recipient(ROSTER, "nobody@x.test")


def test_link_recipient_without_owner_or_applicant_member() -> None:
    roster = Roster([("m2", "bob@x.test")], None, "ann@x.test")
    with pytest.raises(MemberRuleError):
        link_recipient(roster, None)
    with pytest.raises(MemberRuleError):
        link_recipient(Roster([], None, None), None)
    assert link_recipient(roster, "bob@x.test") == "m2"
