"""The field a refused dashboard form marks (dashboard/forms.py)."""

from __future__ import annotations

from gatehouse.dashboard.forms import Refused, form_field
from gatehouse.errors import invalid_argument, not_found


def test_the_service_field_is_translated_into_the_form_field() -> None:
    error = invalid_argument("rejectionReason is required to reject.", "rejectionReason")
    assert form_field(error, {"rejectionReason": "rejection_reason"}, None) == "rejection_reason"


def test_a_field_the_form_does_not_show_marks_the_default_or_nothing() -> None:
    error = invalid_argument("type must be one of question, field, document.", "items.0.type")
    assert form_field(error, {"comment": "comment"}, "items") == "items"
    assert form_field(error, {"comment": "comment"}, None) is None


def test_a_refusal_without_a_field_marks_the_default() -> None:
    assert form_field(not_found("No such customer."), {"status": "status_1"}, "customers") == (
        "customers"
    )


def test_the_page_shows_the_message_beside_the_marked_field() -> None:
    error = invalid_argument("Enter a name of 1 to 200 characters.", "client_name", "too long")
    refused = Refused(error, "client_name")
    assert refused.errors == {"client_name": "Enter a name of 1 to 200 characters."}
    assert refused.status_code == 400
    assert Refused(error, None).errors == {}
