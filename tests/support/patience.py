"""How long tests wait for asynchronous outcomes (workers, receivers).

Waits end as soon as their condition holds, so a generous bound costs nothing
when things work; it only keeps a loaded CI machine from failing a test that
would have passed a moment later. GATEHOUSE_TEST_PATIENCE scales every bound.
"""

from __future__ import annotations

import os

PATIENCE = float(os.environ.get("GATEHOUSE_TEST_PATIENCE", "4"))


def patient(timeout: float) -> float:
    return timeout * PATIENCE
