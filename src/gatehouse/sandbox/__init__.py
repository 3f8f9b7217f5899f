"""Sandbox tenants: simulated applicant and staff steps (docs/sandbox.md).

What others may use: `simulate` and its input, and whether a tenant or a link is a sandbox one.
"""

from gatehouse.sandbox.queries import is_sandbox_tenant, link_in_sandbox
from gatehouse.sandbox.service import SimulatedActor, Simulation, simulate

__all__ = [
    "SimulatedActor",
    "Simulation",
    "is_sandbox_tenant",
    "link_in_sandbox",
    "simulate",
]
