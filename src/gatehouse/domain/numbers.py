"""Integers that come from a client (docs/platform.md "Numbers").

One rule for every integer a client sends, whether as text (a query parameter, a form field)
or as a JSON number: `parse_int(value, field, lo, hi)` gives the integer, or raises 400
`invalid-argument` naming the field. Text is ASCII decimal digits, with a leading `-` only
before a nonzero value; no `+`, no spaces, no exponent, no fraction, no digits of other
scripts (`²`, `٣`), never more than `MAX_DIGITS` digits (so a 5,000-digit value is refused
before any conversion). A JSON number must be an integer (not a boolean, not a float). Both
must then lie within [lo, hi], which for stored values is at most the database's INTEGER range.
"""

from __future__ import annotations

import re

from gatehouse.errors import invalid_argument

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
MAX_DIGITS = 20
_DECIMAL = re.compile(rf"(-?)([0-9]{{1,{MAX_DIGITS}}})")


def decimal_or_none(text: str) -> int | None:
    """The integer written in `text` by the rule above, or None (never raises)."""
    match = _DECIMAL.fullmatch(text)
    if match is None:
        return None
    sign, digits = match.groups()
    value = int(digits)
    if sign and value == 0:
        return None  # "-0": a minus sign only before a negative value
    return -value if sign else value


def parse_int(value: object, field: str, lo: int, hi: int) -> int:
    """`value` (text or a JSON number) as an integer from `lo` to `hi`, else 400 naming `field`."""
    if isinstance(value, str):
        number = decimal_or_none(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        number = None
    if number is None or not lo <= number <= hi:
        raise invalid_argument(
            f"{field} must be an integer from {lo} to {hi}.",
            field,
            f"must be an integer from {lo} to {hi}",
        )
    return number
