"""Tenant environments and the sandbox's simulated actions (docs/sandbox.md).

A tenant is `live` or `sandbox`, fixed when staff create it. A sandbox tenant may simulate the
applicant's and the staff's steps on its own applications; each simulated step is one of
`SIMULATE_ACTIONS` and runs through the same case rules as the real one (domain/status.py,
domain/info_requests.py). Pure vocabulary and checks: no I/O.
"""

from __future__ import annotations

from gatehouse.domain.principals import Role
from gatehouse.errors import invalid_argument

LIVE = "live"
SANDBOX = "sandbox"
ENVIRONMENTS = (LIVE, SANDBOX)

# Applicant steps.
SUBMIT = "submit"
RESPOND = "respond"
# Staff steps.
REQUEST_INFO = "request_info"
APPROVE = "approve"
REJECT = "reject"
HOLD = "hold"
RELEASE = "release"

SIMULATE_ACTIONS = (SUBMIT, REQUEST_INFO, RESPOND, APPROVE, REJECT, HOLD, RELEASE)
APPLICANT_ACTIONS = frozenset({SUBMIT, RESPOND})

# What a simulated step says when the caller leaves it out.
DEFAULT_REJECTION_REASON = "Rejected in the sandbox."
DEFAULT_REQUEST_COMMENT = "Sandbox information request."
DEFAULT_REQUEST_ITEMS: tuple[dict[str, str], ...] = (
    {"type": "question", "prompt": "Sandbox question: please answer."},
)
DEFAULT_ANSWER = "Sandbox answer."

# The roles of the simulated staff: a proposal by an analyst, a countersignature by an mlro.
SIMULATED_ANALYST = Role.ANALYST
SIMULATED_MLRO = Role.MLRO


def check_environment(value: object) -> str:
    """`live` (also when absent) or `sandbox`; anything else is 400 invalid-argument."""
    if value is None:
        return LIVE
    if value not in ENVIRONMENTS:
        raise invalid_argument(
            f"environment must be one of {', '.join(ENVIRONMENTS)}.",
            "environment",
            "unknown environment",
        )
    return str(value)


def check_action(value: object) -> str:
    """One of `SIMULATE_ACTIONS`; anything else is 400 invalid-argument naming `action`."""
    if not isinstance(value, str) or value not in SIMULATE_ACTIONS:
        raise invalid_argument(
            f"action must be one of {', '.join(SIMULATE_ACTIONS)}.", "action", "unknown action"
        )
    return value


def simulated_staff_id(role: str) -> str:
    """How the decision history names a simulated staff member (never shown to tenants)."""
    return f"sandbox:{role}"
