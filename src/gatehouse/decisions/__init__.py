"""Decisions on an application (docs/case-work.md "Decisions"): approve, reject, propose,
under the status machine and the four-eyes rule of `domain/status.py`.

What others may use: `make_decision` and `add_history` (a history entry for any status move).
"""

from gatehouse.decisions.service import add_history, make_decision

__all__ = [
    "add_history",
    "make_decision",
]
