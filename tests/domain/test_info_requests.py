"""Information-request rules (docs/reference/tenant-api.md §2.8, §3.3;
docs/reference/staff-api.md §6.4-§6.6): no database.
"""

from __future__ import annotations

import pytest

from gatehouse.domain import events
from gatehouse.domain import info_requests as rules
from gatehouse.domain.status import InvalidInput, MoveNotAllowed


def test_new_request_keeps_staff_order_and_trims() -> None:
    new = rules.new_request(
        " Please help ",
        [{"type": "document", "prompt": " Passport "}, {"type": "question", "prompt": "Why?"}],
    )
    assert new.comment == "Please help"
    assert [(i.type, i.prompt) for i in new.items] == [
        ("document", "Passport"),
        ("question", "Why?"),
    ]


@pytest.mark.parametrize(
    ("comment", "items", "field"),
    [
        ("c", [], "items"),
        ("c", None, "items"),
        ("c", "x", "items"),
        ("c", [{"type": "photo", "prompt": "p"}], "items.0.type"),
        ("c", [{"type": "question", "prompt": ""}], "items.0.prompt"),
        ("c", [{"type": "question"}], "items.0.prompt"),
        ("c", ["question"], "items.0"),
        (None, [{"type": "question", "prompt": "p"}], "comment"),
        (5, [{"type": "question", "prompt": "p"}], "comment"),
    ],
)
def test_new_request_refuses_bad_input(comment: object, items: object, field: str) -> None:
    """The field is in the details; the message, which the dashboard shows as it is, says in
    words what to change and names no field (no `items.0.prompt`, no `must be a ...`)."""
    with pytest.raises(InvalidInput) as caught:
        rules.new_request(comment, items)
    assert caught.value.field == field
    message = caught.value.message
    assert message[0].isupper()
    assert message.endswith(".")
    assert "items." not in message
    assert not message.startswith(("comment", "type", "items"))
    assert "must be" not in message
    if field.startswith("items.0"):
        assert "item 1" in message.lower()


@pytest.mark.parametrize(
    ("comment", "prompt", "words"),
    [
        ("c" * (rules.MAX_COMMENT + 1), "p", "The comment can be at most"),
        ("c", "p" * (rules.MAX_PROMPT + 1), "The prompt of item 1 can be at most"),
    ],
)
def test_an_overlong_text_is_refused_in_words(comment: str, prompt: str, words: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        rules.new_request(comment, [{"type": "question", "prompt": prompt}])
    assert caught.value.message.startswith(words)


def test_item_limit() -> None:
    too_many = [{"type": "question", "prompt": "p"}] * (rules.MAX_ITEMS + 1)
    with pytest.raises(InvalidInput):
        rules.new_request("c", too_many)


def test_derived_status_and_counts() -> None:
    assert rules.derive_status(["open", "answered"]) == "open"
    assert rules.derive_status(["reopened", "accepted"]) == "open"
    assert rules.derive_status(["answered", "accepted"]) == "responded"
    assert rules.derive_status(["open"], closed=True) == "closed"
    assert rules.derive_status(["open"], cancelled=True) == "cancelled"
    states = ["open", "reopened", "answered", "accepted", "answered"]
    assert rules.open_items(states) == 2
    assert rules.answered_items(states) == 2


def test_item_transitions() -> None:
    assert rules.answer_item("open", "open") == "answered"
    assert rules.answer_item("open", "reopened") == "answered"
    assert rules.answer_item("responded", "answered") == "answered"  # corrected before review
    with pytest.raises(MoveNotAllowed):
        rules.answer_item("open", "accepted")
    assert rules.accept_item("responded", "answered") == "accepted"
    for state in ("open", "reopened", "accepted"):
        with pytest.raises(MoveNotAllowed):
            rules.accept_item("open", state)
    assert rules.reopen_item("responded", "answered") == "reopened"
    assert rules.reopen_item("responded", "accepted") == "reopened"
    for state in ("open", "reopened"):
        with pytest.raises(MoveNotAllowed):
            rules.reopen_item("open", state)


@pytest.mark.parametrize("ended", ["closed", "cancelled"])
def test_ended_requests_refuse_every_move(ended: str) -> None:
    for move in (rules.answer_item, rules.accept_item, rules.reopen_item):
        with pytest.raises(MoveNotAllowed):
            move(ended, "answered")
    with pytest.raises(MoveNotAllowed):
        rules.close_request(ended)
    with pytest.raises(MoveNotAllowed):
        rules.cancel_request(ended)
    assert rules.close_request("open") == "closed"
    assert rules.cancel_request("responded") == "cancelled"


def test_answer_text_rules() -> None:
    assert rules.check_answer("  yes ") == "yes"
    for bad in ("", "   ", None, 3, "x" * (rules.MAX_ANSWER + 1)):
        with pytest.raises(InvalidInput):
            rules.check_answer(bad)
    assert rules.document_reference(None) is None
    assert rules.document_reference(" doc_1 ") == "doc_1"
    with pytest.raises(InvalidInput):
        rules.document_reference(12)


def test_information_request_event_data() -> None:
    items = [
        events.ItemSummary("itm_1", "document", "Passport", "answered"),
        events.ItemSummary("itm_2", "question", "Why?", "reopened"),
    ]
    data = events.info_request(
        status="needs_info",
        previous_status="pending",
        request_id="ir_1",
        request_seq=3,
        round_=2,
        comment="Please",
        items=items,
    )
    assert data == {
        "status": "needs_info",
        "previousStatus": "pending",
        "requestId": "ir_1",
        "requestSeq": 3,
        "round": 2,
        "openItems": 1,
        "comment": "Please",
        "items": [
            {"itemId": "itm_1", "type": "document", "prompt": "Passport"},
            {"itemId": "itm_2", "type": "question", "prompt": "Why?"},
        ],
    }
