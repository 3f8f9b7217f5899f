"""Members of an application and sign-in link reissue (docs/reference/tenant-api.md
§5.6-§5.8).

What others may use: `add_member`, `remove_member`, `reissue_login_session`.
"""

from gatehouse.members.service import add_member, reissue_login_session, remove_member

__all__ = [
    "add_member",
    "reissue_login_session",
    "remove_member",
]
