"""The webhook delivery worker: `loop` takes turns, `claims` leases (`turnover`: one statement
on PostgreSQL), `recorder` writes the outcomes a turn does not."""

from gatehouse.webhooks.delivery.claims import sample_queue
from gatehouse.webhooks.delivery.loop import (
    DEFAULT_CONCURRENCY,
    DeliveryWorker,
    WorkerStats,
    run_delivery_worker,
)
from gatehouse.webhooks.health import disable_failing_endpoints

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DeliveryWorker",
    "WorkerStats",
    "disable_failing_endpoints",
    "run_delivery_worker",
    "sample_queue",
]
