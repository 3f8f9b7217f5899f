"""A delivery worker in its own process, for the crash and scale-out tests.

Settings come from GATEHOUSE_* variables; `--lease` shortens the claim lease
so a killed worker's deliveries come back quickly. On SIGTERM it stops
cleanly and prints its counters as one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal

from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.webhooks.delivery import DeliveryWorker


async def main(lease: float, concurrency: int, poll: float) -> None:
    runtime = Runtime.build(Settings())
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    worker = DeliveryWorker(
        runtime, lease_seconds=lease, poll_seconds=poll, concurrency=concurrency
    )
    print(json.dumps({"ready": True}), flush=True)
    try:
        await worker.run(stop)
    finally:
        await runtime.close()
    print(json.dumps(worker.stats.__dict__), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--lease", type=float, default=2.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--poll", type=float, default=0.1)
    args = parser.parse_args()
    asyncio.run(main(args.lease, args.concurrency, args.poll))
