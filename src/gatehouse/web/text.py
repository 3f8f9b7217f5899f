"""The one rule for text the service accepts (docs/platform.md, "Text input").

Refused in every text input of every surface: U+0000 and the other C0 controls
(U+0001-U+001F), DEL (U+007F), the C1 controls (U+0080-U+009F) and lone
surrogates (U+D800-U+DFFF, which JSON can carry as `\\ud800` escapes). Tab, line
feed and carriage return are the one exception, and only in multi-line free text:
the values named in `MULTI_LINE_NAMES`, and the values of an applicant's form
(`fields.<key>` in JSON, `field.<key>` in the portal's page form), whose
textarea fields the tenant defines. Everywhere else (paths, query strings, the
headers the service reads, credentials, object keys, form field names, file
names and every other value) they are refused too.

Trimming comes first (docs/platform.md, "Text input"): a single-line value loses Unicode
white space at both ends (a tab or a line break there is white space to trim, not a control
character to refuse), then the rule applies to what is left. The JSON body parser and the
forms of the dashboard and the portal (`read_form`) hand the routes the trimmed values;
credentials (`UNTRIMMED_NAMES`) are kept as sent, and checked whole. Names (JSON keys, form
field names), paths and headers are never trimmed.

The checks run where input is decoded, once for every route: the edge (path,
query string, headers, and form bodies, urlencoded or multipart, parsed by the
same parsers the routes use), the JSON body parser (`web/body.py`), and the
verification interface's HTTP Basic credentials.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator, AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from python_multipart.multipart import parse_options_header
from starlette.datastructures import FormData, Headers, UploadFile
from starlette.formparsers import FormParser, MultiPartException, MultiPartParser
from starlette.requests import Request

from gatehouse.domain.normalize import trim
from gatehouse.errors import INVALID_ARGUMENT, GatehouseError

_SINGLE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_MULTI_LINE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")

# Values that are multi-line free text, by their name (the last part of the field's path).
MULTI_LINE_NAMES = frozenset(
    {
        "answer",
        "comment",
        "decision_comment",
        "description",
        # The tenant console's endpoint form: one event type per line (docs/console.md).
        "events",
        "prompt",
        "reason",
        "rejectionReason",
        "rejection_reason",
    }
)
# Single-line values kept as sent: secrets whose every character counts.
UNTRIMMED_NAMES = frozenset(
    {"password", "password_confirm", "current_password", "new_password", "csrf_token"}
)
# Objects (JSON) or name prefixes (forms) whose every value is multi-line free text.
MULTI_LINE_PARENTS = frozenset({"fields", "field"})

# The request headers the service reads, as the edge sees them (lower case), and as named
# in an answer.
READ_HEADERS = {
    b"authorization": "Authorization",
    b"content-type": "Content-Type",
    b"cookie": "Cookie",
    b"idempotency-key": "Idempotency-Key",
    b"origin": "Origin",
    b"x-forwarded-for": "X-Forwarded-For",
}


@dataclass(frozen=True, slots=True)
class TextProblem:
    """A refused character, and the input field that carried it."""

    field: str
    char: str
    in_key: bool = False

    @property
    def code_point(self) -> str:
        return f"U+{ord(self.char):04X}"

    @property
    def issue(self) -> str:
        if self.in_key:
            return f"contains a name with a control character ({self.code_point})"
        return f"contains a control character ({self.code_point})"

    @property
    def message(self) -> str:
        return f"{self.field} {self.issue}, which is not accepted."

    def error(self) -> GatehouseError:
        """400 invalid-argument naming the field (JSON surfaces)."""
        return GatehouseError(
            INVALID_ARGUMENT,
            self.message,
            details=[{"field": self.field, "issue": self.issue}],
        )


def refused_char(value: str, *, multi_line: bool = False) -> str | None:
    """The first character of `value` that the rule refuses, or None."""
    found = (_MULTI_LINE if multi_line else _SINGLE_LINE).search(value)
    return found.group() if found else None


def is_multi_line(path: list[str]) -> bool:
    """Whether the value at `path` (object keys and list indexes) is multi-line free text."""
    if not path:
        return False
    return path[-1] in MULTI_LINE_NAMES or (len(path) >= 2 and path[-2] in MULTI_LINE_PARENTS)


def is_trimmed(path: list[str]) -> bool:
    """Whether the value at `path` is trimmed before the rule applies (single-line values
    that are not credentials)."""
    return not is_multi_line(path) and not (path and path[-1] in UNTRIMMED_NAMES)


def value_refused_char(value: str, path: list[str]) -> str | None:
    """The first refused character of the value at `path`, after trimming when it is
    trimmed."""
    multi_line = is_multi_line(path)
    return refused_char(trim(value) if is_trimmed(path) else value, multi_line=multi_line)


def trim_json(data: Any, path: tuple[str, ...] = ()) -> Any:
    """A decoded JSON document with its trimmed values trimmed (`is_trimmed`)."""
    if isinstance(data, str):
        return trim(data) if is_trimmed(list(path)) else data
    if isinstance(data, dict):
        return {key: trim_json(item, (*path, key)) for key, item in data.items()}
    if isinstance(data, list):
        return [trim_json(item, (*path, str(i))) for i, item in enumerate(data)]
    return data


def trim_form(form: FormData) -> FormData:
    """A posted form with its trimmed values trimmed; files and credentials as sent."""
    return FormData(
        [
            (name, trim(value) if isinstance(value, str) and is_trimmed(name.split(".")) else value)
            for name, value in form.multi_items()
        ]
    )


async def read_form(request: Request, *, max_files: int = 1000, max_fields: int = 1000) -> FormData:
    """`request.form(...)` with its values trimmed (`trim_form`): how every page form is read."""
    form = await request.form(max_files=max_files, max_fields=max_fields)
    return trim_form(form)


def _field(path: list[str], default: str) -> str:
    return ".".join(path) or default


def check_json(data: Any) -> TextProblem | None:
    """The first refused character in a decoded JSON document (keys and strings)."""
    stack: list[tuple[Any, list[str]]] = [(data, [])]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            char = value_refused_char(value, path)
            if char is not None:
                return TextProblem(_field(path, "body"), char)
        elif isinstance(value, dict):
            children = []
            for key, item in value.items():
                char = refused_char(key)
                if char is not None:
                    return TextProblem(_field(path, "body"), char, in_key=True)
                children.append((item, [*path, key]))
            stack.extend(reversed(children))
        elif isinstance(value, list):
            stack.extend((item, [*path, str(i)]) for i, item in reversed(list(enumerate(value))))
    return None


def check_pairs(
    pairs: Iterable[tuple[str, str | UploadFile]], container: str
) -> TextProblem | None:
    """The first refused character in name/value pairs (a form or a query string).

    A form field's name splits on dots for the multi-line rule (`field.<key>`).
    """
    for name, value in pairs:
        char = refused_char(name)
        if char is not None:
            return TextProblem(container, char, in_key=True)
        if isinstance(value, UploadFile):
            for text in (value.filename or "", value.content_type or ""):
                char = refused_char(text)
                if char is not None:
                    return TextProblem(name, char)
            continue
        char = value_refused_char(value, name.split("."))
        if char is not None:
            return TextProblem(name, char)
    return None


def check_form(form: FormData) -> TextProblem | None:
    """The first refused character in a posted form (urlencoded or multipart)."""
    return check_pairs(form.multi_items(), "form")


def check_query(query_string: bytes) -> TextProblem | None:
    """The first refused character in a query string, decoded as the app decodes it."""
    if not query_string:
        return None
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    return check_pairs(((name, value) for name, value in pairs), "query")


def check_request_line_and_headers(
    path: str, query_string: bytes, headers: Iterable[tuple[bytes, bytes]]
) -> TextProblem | None:
    """The first refused character in the decoded path, the query string or a header the
    service reads (header values are decoded as latin-1, the way the app reads them)."""
    char = refused_char(path)
    if char is not None:
        return TextProblem("path", char)
    problem = check_query(query_string)
    if problem is not None:
        return problem
    for name, value in headers:
        shown = READ_HEADERS.get(name)
        if shown is None:
            continue
        char = refused_char(value.decode("latin-1"))
        if char is not None:
            return TextProblem(shown, char)
    return None


FORM_TYPES = (b"application/x-www-form-urlencoded", b"multipart/form-data")


def is_form(content_type: str) -> bool:
    """Whether a body of this Content-Type is a form the routes would parse."""
    return parse_options_header(content_type)[0] in FORM_TYPES


def is_json(content_type: str) -> bool:
    kind = parse_options_header(content_type)[0]
    return kind == b"application/json" or kind.endswith(b"+json")


def check_json_body(raw: bytes) -> TextProblem | None:
    """The first refused character in a JSON body, decoded leniently (raw control
    characters and lone surrogates included); None for a clean or undecodable body."""
    try:
        data = json.loads(raw, strict=False)
    except (ValueError, RecursionError):
        return None
    return check_json(data)


async def check_form_body(
    headers: Headers, body: bytes | AsyncIterator[bytes]
) -> TextProblem | None:
    """The first refused character in a form body (whole, or in pieces), parsed exactly as
    a route's `request.form()` parses it; None as well for a body the parsers refuse (the
    route answers that one)."""

    async def stream() -> AsyncGenerator[bytes, None]:
        if isinstance(body, bytes):
            yield body
        else:
            async for chunk in body:
                yield chunk

    kind = parse_options_header(headers.get("content-type"))[0]
    try:
        if kind == b"multipart/form-data":
            # No count limits here: the routes apply their own.
            parser: FormParser | MultiPartParser = MultiPartParser(
                headers, stream(), max_files=float("inf"), max_fields=float("inf")
            )
        else:
            parser = FormParser(headers, stream(), max_fields=float("inf"))
        form = await parser.parse()
    except (MultiPartException, ValueError):
        return None
    try:
        return check_form(form)
    finally:
        await form.close()
