"""What a staff member may do on one case now (docs/workstation.md "The case page").

The one place the case page learns its moves from: the status machine's rule of who may make
which decision (domain/status.py `refusal`), the screening guard rail (an open hit blocks
proposing and countersigning an approval, docs/screening.md), the realignment rule of when an
intake may change (domain/realignment.py) and the roles the other case actions need. The page
renders what this answers and nothing else; the services enforce the same rules
(`decide`, `screening_refusal`), so a move the page shows is one the server accepts.

Beside the moves it answers the awaited moves that are withheld, with the reason in words:
the page says why "Countersign" is missing rather than leaving the reader to guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from gatehouse.domain.principals import Role, role_rank
from gatehouse.domain.realignment import intake_change_refusal
from gatehouse.domain.status import (
    APPROVE,
    COUNTERSIGN,
    DECISION_ACTIONS,
    CaseState,
    MoveNotAllowed,
    refusal,
)

# The decisions an open screening hit blocks (docs/screening.md "The guard rail").
BLOCKED_BY_OPEN_HITS = frozenset({APPROVE, COUNTERSIGN})
# A staff id no one has: asking the rule whether the state allows a move at all.
_NOBODY = ""
# The least role of each case action beside the decisions (docs/workstation.md).
RECORDS_ROLE = Role.MLRO
CHANGE_INTAKE_ROLE = Role.MLRO
CHECK_STATUS_ROLE = Role.ADMIN
ERASE_ROLE = Role.ADMIN


def screening_refusal(action: str, open_hits: int) -> MoveNotAllowed | None:
    """Why `action` may not be taken while `open_hits` screening hits are open, or None."""
    if action not in BLOCKED_BY_OPEN_HITS or open_hits <= 0:
        return None
    plural = "s" if open_hits > 1 else ""
    return MoveNotAllowed(
        f"The application has {open_hits} open screening hit{plural}: "
        "resolve them before approving."
    )


@dataclass(frozen=True, slots=True)
class Withheld:
    """A decision the case's state allows but this staff member may not take now, and why."""

    action: str
    reason: str


@dataclass(frozen=True, slots=True)
class CaseMoves:
    """Every move the case page may offer one staff member on one case now."""

    decisions: tuple[str, ...]
    withheld: tuple[Withheld, ...]
    review: bool  # review answers, resolve hits, remind, screen again
    request_information: bool
    note: bool
    assign: bool
    records: bool  # the evidence pack and legal holds
    change_intake: bool
    check_status: bool
    erase: bool

    def actions(self) -> dict[str, bool]:
        """The flags by the names the page's parts read (`actions.review`…)."""
        return {
            "decide": bool(self.decisions or self.withheld),
            "review": self.review,
            "raise": self.request_information,
            "note": self.note,
            "assign": self.assign,
            "records": self.records,
            "change_intake": self.change_intake,
            "check_status": self.check_status,
            "erase": self.erase,
        }


NO_MOVES = CaseMoves((), (), False, False, False, False, False, False, False, False)


def case_moves(
    state: CaseState, *, actor_id: str, actor_role: str, open_hits: int, erased: bool
) -> CaseMoves:
    """The moves of `actor` on a case in `state` with `open_hits` open screening hits.

    An erased case has none. A decision is offered when the status machine allows it to this
    actor and no open hit blocks it; it is withheld, with the reason, when the state allows it
    to someone (the top role, not the proposer) but not to this actor, or a hit blocks it.
    """
    if erased:
        return NO_MOVES
    allowed: list[str] = []
    withheld: list[Withheld] = []
    for action in DECISION_ACTIONS:
        if refusal(state, action, actor_id=_NOBODY, actor_role=Role.SUPER_ADMIN) is not None:
            continue  # the state does not allow it to anyone: nothing to say
        # The reason nearest the reader first: four-eyes, then the role, then a hit.
        refused = (
            refusal(state, action, actor_id=actor_id, actor_role=Role.SUPER_ADMIN)
            or refusal(state, action, actor_id=actor_id, actor_role=actor_role)
            or screening_refusal(action, open_hits)
        )
        if refused is None:
            allowed.append(action)
        else:
            withheld.append(Withheld(action, refused.message))
    rank = role_rank(actor_role)
    return CaseMoves(
        decisions=tuple(allowed),
        withheld=tuple(withheld),
        review=True,
        request_information=True,
        note=True,
        assign=True,
        records=rank >= role_rank(RECORDS_ROLE),
        change_intake=rank >= role_rank(CHANGE_INTAKE_ROLE)
        and intake_change_refusal(state.status) is None,
        check_status=rank >= role_rank(CHECK_STATUS_ROLE),
        erase=rank >= role_rank(ERASE_ROLE),
    )
