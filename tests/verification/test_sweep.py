"""The expiry sweep (docs/reference/verification.md §3, §5.2; docs/reference/verification.md)
with a clock the tests control.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gatehouse.runtime import Runtime
from gatehouse.sweeps import run_sweeps_once, sweep_jobs
from gatehouse.timeutil import format_ts
from tests.verification.conftest import LiveRecorder, Verification, eventually
from tests.verification.test_callbacks import assert_payload_types

START = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


class Clock:
    def __init__(self, runtime: Runtime) -> None:
        self.now = START
        runtime.clock = lambda: self.now

    def advance(self, **delta: float) -> None:
        self.now = self.now + timedelta(**delta)


async def test_warning_once_per_document_then_draft_on_expiry(
    verification: Verification, runtime: Runtime, recorder: LiveRecorder, worker: None
) -> None:
    clock = Clock(runtime)
    client = await verification.create_client()
    await verification.register(client, recorder.url)
    expires = START + timedelta(days=40)
    customer = await verification.create_customer(
        client, documents=[{"type": "passport", "expiresAt": format_ts(expires)}]
    )
    await verification.set_status(customer["uuid"], 6)
    await eventually(lambda: len(recorder.app.requests) == 1)

    assert await verification.sweep() == {"warningsSent": 0, "movedToDraft": 0}
    clock.advance(days=10, seconds=1)  # 29 days, 23:59:59 left
    assert await verification.sweep() == {"warningsSent": 1, "movedToDraft": 0}
    await eventually(lambda: len(recorder.app.requests) == 2)
    warning = recorder.app.requests[1].json()
    assert_payload_types(warning)
    assert warning["event"] == "expiry_warning"
    assert warning["expiryWarningFor"] == ["passport"]
    assert warning["newStatus"] == 6
    assert warning["uuid"] == customer["uuid"]

    # Never a second warning for the same document.
    clock.advance(days=5)
    assert await verification.sweep() == {"warningsSent": 0, "movedToDraft": 0}

    clock.now = expires
    assert await verification.sweep() == {"warningsSent": 0, "movedToDraft": 1}
    await eventually(lambda: len(recorder.app.requests) == 3)
    moved = recorder.app.requests[2].json()
    assert_payload_types(moved)
    assert moved["event"] == "customer_status_changed"
    assert moved["newStatus"] == 2
    assert moved["expiryWarningFor"] == []
    assert moved["updatedAt"] == format_ts(expires)

    clock.advance(days=1)
    assert await verification.sweep() == {"warningsSent": 0, "movedToDraft": 0}
    detail = await verification.http.get(
        f"/staff/v1/verification/customers/{customer['uuid']}", headers=verification.staff.headers
    )
    assert detail.json()["status"] == 2
    assert detail.json()["reason"] == "document_expired"
    await eventually(lambda: verification.callbacks(status="succeeded"))
    assert len(recorder.app.requests) == 3


async def test_the_warning_window_is_30_days_inclusive(
    verification: Verification, runtime: Runtime
) -> None:
    clock = Clock(runtime)
    client = await verification.create_client()
    await verification.create_customer(
        client,
        documents=[{"type": "passport", "expiresAt": format_ts(START + timedelta(days=30))}],
    )
    await verification.create_customer(
        client,
        documents=[
            {
                "type": "passport",
                "expiresAt": format_ts(START + timedelta(days=30, milliseconds=1)),
            }
        ],
    )
    assert await verification.sweep() == {"warningsSent": 1, "movedToDraft": 0}
    clock.advance(milliseconds=1)
    assert await verification.sweep() == {"warningsSent": 1, "movedToDraft": 0}


async def test_several_documents_warn_in_one_callback_each_once(
    verification: Verification, runtime: Runtime, recorder: LiveRecorder, worker: None
) -> None:
    clock = Clock(runtime)
    client = await verification.create_client()
    await verification.register(client, recorder.url)
    await verification.create_customer(
        client,
        documents=[
            {"type": "passport", "expiresAt": format_ts(START + timedelta(days=20))},
            {"type": "emirates_id", "expiresAt": format_ts(START + timedelta(days=25))},
            {"type": "egypt_national_id", "expiresAt": format_ts(START + timedelta(days=45))},
        ],
    )
    assert await verification.sweep() == {"warningsSent": 2, "movedToDraft": 0}
    await eventually(lambda: len(recorder.app.requests) == 1)
    assert recorder.app.requests[0].json()["expiryWarningFor"] == ["passport", "emirates_id"]
    clock.advance(days=16)
    assert await verification.sweep() == {"warningsSent": 1, "movedToDraft": 0}
    await eventually(lambda: len(recorder.app.requests) == 2)
    assert recorder.app.requests[1].json()["expiryWarningFor"] == ["egypt_national_id"]
    # The first expiry moves the customer; later expiries of other documents
    # find it in Draft already and send nothing more.
    clock.now = START + timedelta(days=21)
    assert await verification.sweep() == {"warningsSent": 0, "movedToDraft": 1}
    clock.now = START + timedelta(days=50)
    assert await verification.sweep() == {"warningsSent": 0, "movedToDraft": 0}
    await eventually(lambda: len(recorder.app.requests) == 3)
    await eventually(lambda: verification.callbacks(status="succeeded"))
    assert len(recorder.app.requests) == 3


async def test_a_customer_set_back_from_draft_is_moved_again_only_by_a_new_expiry(
    verification: Verification, runtime: Runtime
) -> None:
    clock = Clock(runtime)
    client = await verification.create_client()
    customer = await verification.create_customer(
        client, documents=[{"type": "passport", "expiresAt": format_ts(START + timedelta(days=1))}]
    )
    clock.advance(days=2)
    assert await verification.sweep() == {"warningsSent": 0, "movedToDraft": 1}
    await verification.set_status(customer["uuid"], 6)
    clock.advance(days=1)
    assert await verification.sweep() == {"warningsSent": 0, "movedToDraft": 0}


async def test_the_periodic_sweep_job_runs_the_same_rules(
    verification: Verification, runtime: Runtime
) -> None:
    assert "verification_expiry" in [name for name, _ in sweep_jobs()]
    clock = Clock(runtime)
    client = await verification.create_client()
    customer = await verification.create_customer(
        client, documents=[{"type": "passport", "expiresAt": format_ts(START + timedelta(days=3))}]
    )
    await run_sweeps_once(runtime)
    clock.advance(days=3)
    await run_sweeps_once(runtime)
    detail = await verification.http.get(
        f"/staff/v1/verification/customers/{customer['uuid']}", headers=verification.staff.headers
    )
    assert detail.json()["status"] == 2
    # Both effects happened once: a second run finds nothing to do.
    assert await verification.sweep() == {"warningsSent": 0, "movedToDraft": 0}
