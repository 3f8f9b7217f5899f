"""Risk of applications (docs/screening.md, "Risk"): per-intake rules, the computed level,
an mlro's override.

What other features may use: recomputing and reading an application's risk (and its shape), and the
correlated level the staff queue filters on.
"""

from gatehouse.risk.queries import level_figures, level_of
from gatehouse.risk.schemas import Risk
from gatehouse.risk.service import override_risk, recompute_risk, risk_view

__all__ = [
    "Risk",
    "level_figures",
    "level_of",
    "override_risk",
    "recompute_risk",
    "risk_view",
]
