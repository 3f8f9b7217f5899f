"""The tenant console's links and sessions (docs/console.md)."""

from gatehouse.consoles.schemas import ConsoleLinkView
from gatehouse.consoles.service import (
    LinkUnusable,
    LiveConsole,
    OpenedConsole,
    create_link,
    end_session,
    find_session,
    link_is_usable,
    redeem_link,
)

__all__ = [
    "ConsoleLinkView",
    "LinkUnusable",
    "LiveConsole",
    "OpenedConsole",
    "create_link",
    "end_session",
    "find_session",
    "link_is_usable",
    "redeem_link",
]
