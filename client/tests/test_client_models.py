"""Models keep unknown fields and values; only `active` is approval (docs/reference/tenant-api.md
§2.1, §2.3, §7).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from gatehouse_client import (
    Application,
    ApplicationStatus,
    LoginSession,
    WebhookEndpoint,
    format_timestamp,
    is_approved,
)
from gatehouse_client._sweep import SweepTracker


def application(client_id: str, updated: datetime, status: str = "pending") -> Application:
    return Application.from_json(
        {"clientId": client_id, "status": status, "updatedAt": format_timestamp(updated)}
    )


def test_application_keeps_unknown_fields_and_statuses() -> None:
    app = Application.from_json(
        {
            "clientId": "app_1",
            "status": "approved",
            "createdAt": "2026-11-22T10:00:00.000Z",
            "riskHint": "new",
            "members": [{"uid": "mem_1", "email": "a@b", "role": "owner", "newMemberField": 1}],
            "decision": {"action": "something_new", "toStatus": "frozen", "at": None},
        }
    )
    assert app.status == "approved"
    assert not app.status.is_known
    assert not app.is_approved
    assert not is_approved(app)
    assert not is_approved("approved")
    assert app.extra == {"riskHint": "new"}
    assert app.members[0].role == "owner"
    assert app.members[0].extra == {"newMemberField": 1}
    assert app.decision is not None
    assert app.decision.to_status == "frozen"
    assert app.created_at == datetime(2026, 11, 22, 10, tzinfo=UTC)
    assert app.members_included


@pytest.mark.parametrize(
    ("value", "approved"),
    [("active", True), ("Active", False), ("approved", False), (" active", False), ("", False)],
)
def test_only_exact_active_is_approved(value: str, approved: bool) -> None:
    assert ApplicationStatus(value).is_approved is approved
    assert is_approved(value) is approved


def test_list_elements_without_members_say_so() -> None:
    app = Application.from_json({"clientId": "app_1", "status": "pending"})
    assert app.members == []
    assert not app.members_included


def test_credentials_stay_out_of_repr() -> None:
    session = LoginSession.from_json(
        {"loginUrl": "http://x/portal/login/SECRET", "clientId": "app_1", "expiresAt": None}
    )
    assert "SECRET" not in repr(session)
    assert session.login_url.endswith("SECRET")
    endpoint = WebhookEndpoint.from_json({"id": "we_1", "secret": "whsec_TOPSECRET"})
    assert "TOPSECRET" not in repr(endpoint)


def test_format_timestamp_is_the_api_format() -> None:
    assert format_timestamp(datetime(2026, 11, 22, 10, 0, 0, 123456, tzinfo=UTC)) == (
        "2026-11-22T10:00:00.123Z"
    )
    with pytest.raises(ValueError, match="timezone-aware"):
        format_timestamp(datetime(2026, 11, 22))


def test_sweep_tracker_runs_catch_up_passes_until_nothing_changes() -> None:
    t0 = datetime(2026, 11, 22, 10, tzinfo=UTC)
    tracker = SweepTracker(since=t0, overlap=timedelta(seconds=30))
    assert tracker.first_window() == t0 - timedelta(seconds=30)
    tracker.add(application("app_1", t0 + timedelta(seconds=5)))
    tracker.add(application("app_2", t0 + timedelta(seconds=1)))
    second = tracker.next_window()
    assert second == t0 + timedelta(seconds=5) - timedelta(seconds=30)
    # The catch-up pass brings an application updated during the first pass,
    # and an unchanged one again.
    tracker.add(application("app_3", t0 + timedelta(seconds=9)))
    tracker.add(application("app_1", t0 + timedelta(seconds=5)))
    assert tracker.next_window() == t0 + timedelta(seconds=9) - timedelta(seconds=30)
    tracker.add(application("app_3", t0 + timedelta(seconds=9)))
    assert tracker.next_window() is False
    applications, checkpoint = tracker.result()
    assert [a.client_id for a in applications] == ["app_3", "app_1", "app_2"]
    assert checkpoint == t0 + timedelta(seconds=9)


def test_sweep_tracker_keeps_the_previous_checkpoint_when_nothing_is_new() -> None:
    t0 = datetime(2026, 11, 22, 10, tzinfo=UTC)
    tracker = SweepTracker(since=t0, overlap=timedelta(seconds=30))
    tracker.add(application("app_1", t0 - timedelta(seconds=10)))  # inside the overlap
    tracker.next_window()
    assert tracker.result().checkpoint == t0
    empty = SweepTracker(since=None, overlap=timedelta(0))
    assert empty.next_window() is False
    assert empty.result() == ([], None)


def test_sweep_tracker_replaces_an_older_version_and_stops_at_max_passes() -> None:
    t0 = datetime(2026, 11, 22, 10, tzinfo=UTC)
    tracker = SweepTracker(since=None, overlap=timedelta(seconds=1), max_passes=2)
    tracker.add(application("app_1", t0))
    assert tracker.next_window() is not False
    tracker.add(application("app_1", t0 + timedelta(seconds=3), status="hold"))
    assert tracker.next_window() is False  # max_passes reached
    (only,), checkpoint = tracker.result()
    assert only.status == "hold"
    assert checkpoint == t0 + timedelta(seconds=3)
