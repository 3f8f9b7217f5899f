"""What the queue page shows around its rows (docs/workstation.md "The queue"): the work
states with their counts, and the column headings that sort. Every link is the page's own
query string with one value changed, so the whole view stays in the URL (a saved view is a
bookmark)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from gatehouse.domain.work_state import STATE_WORDS
from gatehouse.domain.workstation import (
    KEY_COMPANY,
    KEY_CREATED,
    KEY_STATE,
    KEY_UPDATED,
    QUEUE_SORTS,
    SORT_COMPANY,
    SORT_FLIPPED,
    SORT_OLDEST,
    SORT_STATE_LONGEST,
    SORT_UPDATED,
)


@dataclass(frozen=True, slots=True)
class StateLink:
    value: str
    words: str
    count: int
    url: str
    current: bool


@dataclass(frozen=True, slots=True)
class Heading:
    """A sortable column heading: its link and, on the sorted column, `aria-sort`."""

    label: str
    url: str
    aria_sort: str | None


# The sortable columns: the order a first click asks for, and whether oldest (or A) first
# reads as ascending in the column as shown (no: the times are shown as durations).
SORTABLE: dict[str, tuple[str, str, bool]] = {
    KEY_COMPANY: ("Company", SORT_COMPANY, True),
    KEY_CREATED: ("Age", SORT_OLDEST, False),
    KEY_STATE: ("In this state", SORT_STATE_LONGEST, False),
    KEY_UPDATED: ("Updated", SORT_UPDATED, False),
}


def queue_url(values: Mapping[str, str], **changes: str) -> str:
    """The queue with `values` (the page's valid query values) and `changes` (empty: drop)."""
    merged = {**values, **changes}
    query = urlencode({name: value for name, value in merged.items() if value})
    return "/dashboard" + ("?" + query if query else "")


def state_links(
    values: Mapping[str, str], counts: Mapping[str, int], chosen: str | None
) -> list[StateLink]:
    """`All` then each work state, with its count under the other filters."""
    links = [StateLink("", "All", sum(counts.values()), queue_url(values, state=""), not chosen)]
    for state, words in STATE_WORDS.items():
        links.append(
            StateLink(
                state.value,
                words,
                counts.get(state.value, 0),
                queue_url(values, state=state.value),
                chosen == state.value,
            )
        )
    return links


def headings(values: Mapping[str, str], sort: str) -> dict[str, Heading]:
    """Each sortable column's heading: a first click sorts by it, the next turns it round."""
    key_now, first_now = QUEUE_SORTS[sort]
    out: dict[str, Heading] = {}
    for key, (label, default, reads_ascending) in SORTABLE.items():
        if key == key_now:
            ascending = first_now == reads_ascending
            out[key] = Heading(
                label,
                queue_url(values, sort=SORT_FLIPPED[sort]),
                "ascending" if ascending else "descending",
            )
        else:
            out[key] = Heading(label, queue_url(values, sort=default), None)
    return out
