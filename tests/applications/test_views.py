"""Resource shapes (docs/reference/tenant-api.md §2.4, §2.8; docs/reference/tenant-api.md §5),
built from rows without a database.
"""

from __future__ import annotations

from datetime import UTC, datetime

from gatehouse.applications.schemas import (
    application_view,
    info_request_view,
    item_counts,
    open_info_request_view,
)
from gatehouse.storage.tables.applications import (
    Application,
    Decision,
    InfoRequest,
    InfoRequestItem,
    Member,
)

T0 = datetime(2026, 11, 22, 10, 0, 0, 123000, tzinfo=UTC)


def _application(**values: object) -> Application:
    base: dict[str, object] = {
        "id": "app_1",
        "tenant_id": "ten_1",
        "identity": "email:a@x.test",
        "external_ref": None,
        "applicant_email": "a@x.test",
        "company_name": "Acme",
        "label_id": "lbl_1",
        "status": "pending",
        "submitted_at": None,
        "rejection_reason": "kept while not rejected",
        "created_at": T0,
        "updated_at": T0,
    }
    base.update(values)
    return Application(**base)


def _item(item_id: str, position: int, status: str) -> InfoRequestItem:
    return InfoRequestItem(
        id=item_id,
        request_id="ir_1",
        position=position,
        type="document",
        prompt=f"p{position}",
        status=status,
        answer="hidden",
    )


def test_optional_fields_are_omitted_until_they_apply() -> None:
    view = application_view(_application(), [], None, None)
    assert "submittedAt" not in view
    assert "rejectionReason" not in view
    assert view["createdAt"] == "2026-11-22T10:00:00.123Z"
    assert view["decision"] is None
    assert view["openInfoRequest"] is None
    assert view["members"] == []
    rejected = application_view(
        _application(status="rejected", rejection_reason="No", submitted_at=T0), [], None, None
    )
    assert rejected["rejectionReason"] == "No"
    assert rejected["submittedAt"] == "2026-11-22T10:00:00.123Z"


def test_members_and_decision_shapes() -> None:
    member = Member(
        id="mem_1", application_id="app_1", email="a@x.test", role="applicant", joined_at=T0
    )
    decision = Decision(
        id="dec_1",
        application_id="app_1",
        action="hold",
        from_status="pending",
        to_status="hold",
        by_role="analyst",
        by_staff_id="stf_hidden",
        comment=None,
        at=T0,
    )
    view = application_view(_application(), [member], decision, None)
    assert view["members"] == [
        {
            "uid": "mem_1",
            "email": "a@x.test",
            "role": "applicant",
            "joinedAt": "2026-11-22T10:00:00.123Z",
        }
    ]
    assert view["decision"] == {
        "action": "hold",
        "fromStatus": "pending",
        "toStatus": "hold",
        "byRole": "analyst",
        "comment": None,
        "at": "2026-11-22T10:00:00.123Z",
    }
    assert "stf_hidden" not in str(view)


def test_info_request_items_in_staff_order_and_counts() -> None:
    request = InfoRequest(
        id="ir_1",
        application_id="app_1",
        seq=3,
        round=2,
        status="open",
        comment="c",
        created_at=T0,
        updated_at=T0,
    )
    items = [
        _item("itm_b", 2, "answered"),
        _item("itm_a", 1, "reopened"),
        _item("itm_c", 3, "open"),
        _item("itm_d", 4, "accepted"),
    ]
    assert item_counts(items) == (2, 1)
    view = info_request_view(request, items)
    assert [i["itemId"] for i in view["items"]] == ["itm_a", "itm_b", "itm_c", "itm_d"]
    assert view["openItems"] == 2
    assert view["answeredItems"] == 1
    assert view["respondedAt"] is None
    assert view["closedAt"] is None
    assert view["cancelledAt"] is None
    assert "hidden" not in str(view)
    summary = open_info_request_view(request, items)
    assert summary == {
        "requestId": "ir_1",
        "seq": 3,
        "round": 2,
        "openItems": 2,
        "answeredItems": 1,
        "at": "2026-11-22T10:00:00.123Z",
    }
    assert application_view(_application(), [], None, summary)["openInfoRequest"] == summary
