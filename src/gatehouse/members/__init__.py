"""members."""

from gatehouse.members.service import add_member, reissue_login_session, remove_member

__all__ = [
    "add_member",
    "reissue_login_session",
    "remove_member",
]
