"""decisions."""

from gatehouse.decisions.service import add_history, make_decision

__all__ = [
    "add_history",
    "make_decision",
]
