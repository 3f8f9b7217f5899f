"""The portal's refusal messages are chosen by the error's field, issue and kind, never by
its English wording (src/gatehouse/portal/texts.py; docs/reference/portal.md, "Languages")."""

from __future__ import annotations

import pytest

from gatehouse.domain import info_requests as rules
from gatehouse.domain.status import InvalidInput, TextTooLong
from gatehouse.errors import GatehouseError, invalid_argument
from gatehouse.portal import texts


def refused(value: object) -> GatehouseError:
    with pytest.raises(GatehouseError) as caught:
        rules.check_answer(value)
    return caught.value


def test_an_answer_over_its_limit_is_too_long_and_an_empty_one_is_needed() -> None:
    assert texts.refusal(refused("x" * (rules.MAX_ANSWER + 1))) == texts.ANSWER_TOO_LONG
    assert texts.refusal(refused("   ")) == texts.ANSWER_NEEDED
    assert texts.refusal(refused(None)) == texts.ANSWER_NEEDED


def test_the_kind_decides_not_the_wording() -> None:
    assert texts.refusal(TextTooLong("Trop long.", field="answer")) == texts.ANSWER_TOO_LONG
    worded = InvalidInput("answer must be at most 10 characters.", field="answer")
    assert texts.refusal(worded) == texts.ANSWER_NEEDED


def test_the_issue_and_the_field_decide_the_rest() -> None:
    assert texts.refusal(invalid_argument("x", "file", "too large")) == texts.FILE_TOO_LARGE
    assert texts.refusal(invalid_argument("x", "file", "empty")) == texts.FILE_EMPTY
    assert texts.refusal(invalid_argument("x", "type")) == texts.CHOOSE_FILE
    assert texts.refusal(invalid_argument("x", "fields.vat")) == texts.VALUE_TOO_LONG
    assert texts.refusal(invalid_argument("x")) == texts.NOT_ACCEPTED
