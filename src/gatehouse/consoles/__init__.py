"""The tenant console's links and sessions (docs/console.md).

What others may use: minting and redeeming a link, finding and ending a session, the secret
kept for the next page, and the link's shape.
"""

from gatehouse.consoles.schemas import ConsoleLinkView
from gatehouse.consoles.service import (
    IDLE_TIMEOUT,
    SESSION_LIFETIME,
    LinkUnusable,
    LiveConsole,
    OpenedConsole,
    create_link,
    end_session,
    find_session,
    keep_secret_for_next_page,
    link_is_usable,
    redeem_link,
    take_secret,
)

__all__ = [
    "IDLE_TIMEOUT",
    "SESSION_LIFETIME",
    "ConsoleLinkView",
    "LinkUnusable",
    "LiveConsole",
    "OpenedConsole",
    "create_link",
    "end_session",
    "find_session",
    "keep_secret_for_next_page",
    "link_is_usable",
    "redeem_link",
    "take_secret",
]
