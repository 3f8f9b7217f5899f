"""What a route declares for /openapi.json, beside the route itself (docs/api-reference.md).

A JSON route of a surface (/v1, /staff/v1, /portal/api, /verify) carries one `Op`, written as
a decorator right under the route's own::

    @router.get("/v1/applications/{client_id}")
    @Op("getApplication", "Get an application", {200: Application}, access=READ)
    async def read_application(...) -> Response: ...

An `Op` names what FastAPI cannot know, since routes read their query strings and bodies
themselves: a stable operationId, a summary, the success answers as the `TypedDict`s the views
return, the scope or role the route needs, its query parameters, the errors it can answer
beyond its surface's usual ones, and examples. `declared_operations` collects them from the
app's routes when the document is built; a route without one keeps FastAPI's default
operationId, which tests/api/test_openapi.py refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.routing import BaseRoute

from gatehouse.web.dispatch import leaf_routes

# A success answer whose body is raw bytes (a document's content), not JSON.
BINARY = object()

# Where an endpoint keeps the `Op` its decorator gave it.
_ATTRIBUTE = "__gatehouse_operation__"

Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


@dataclass(frozen=True)
class Media:
    """A success answer that is not (only) JSON: its media types and their schemas, and the
    TypedDict of its JSON variant if it has one."""

    content: Mapping[str, Any]
    json: Any = None


@dataclass(frozen=True)
class Query:
    """A query parameter the route reads itself from the query string."""

    name: str
    description: str
    schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "string"})
    required: bool = False


@dataclass(frozen=True)
class Op:
    """What the document says about one operation beyond what FastAPI knows; used as the
    route function's decorator (under the router's), it marks that function's operation."""

    operation_id: str
    summary: str
    # Success status -> the TypedDict or model of its body; None: no body.
    ok: Mapping[int, Any]
    # Tenant API: the scope; staff API: the least role; verify: "basic" or "none".
    access: str | None = None
    errors: Iterable[int] = ()
    query: Sequence[Query] = ()
    # A request body schema for a route whose decorator declares none.
    body: type[BaseModel] | Mapping[str, Any] | None = None
    body_required: bool = True
    body_media: str = "application/json"
    # Field -> schema, replacing what a loosely typed body model says (`Any`, a plain string
    # where the server takes one of a few values); the route's checks stay as they are.
    body_fields: Mapping[str, Any] = field(default_factory=dict)
    example: Any = None
    answer_example: Any = None
    description: str | None = None
    # Per-status wording for the success answers (e.g. created / repeated).
    ok_descriptions: Mapping[int, str] = field(default_factory=dict)

    def __call__(self, endpoint: Endpoint) -> Endpoint:
        setattr(endpoint, _ATTRIBUTE, self)
        return endpoint


def declared_operations(routes: Sequence[BaseRoute]) -> dict[tuple[str, str], Op]:
    """(METHOD, path) -> the `Op` its route function was decorated with."""
    table: dict[tuple[str, str], Op] = {}
    for route in leaf_routes(routes):
        if not isinstance(route, APIRoute):
            continue
        op = getattr(route.endpoint, _ATTRIBUTE, None)
        if isinstance(op, Op):
            for method in route.methods or ():
                table[(method, route.path_format)] = op
    return table


# -- pieces the surfaces' operations share --------------------------------------------------

PAGE_SIZE: Mapping[str, Any] = {"type": "integer", "minimum": 1, "maximum": 100}
LIMIT = Query("limit", "Page size, 1 to 100.", PAGE_SIZE)
CURSOR = Query("cursor", "The `nextCursor` of the previous page, with the same filters.")


def status_filter(what: str, values: Iterable[str]) -> Query:
    """`status`: only the `what` (e.g. "deliveries") with one of `values`."""
    return Query(
        "status", f"Only {what} with this status.", {"type": "string", "enum": list(values)}
    )


def nullable(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"anyOf": [dict(schema), {"type": "null"}]}


def page(element: Any) -> dict[str, Any]:
    """The example of a one-element, last page."""
    return {"data": [element], "nextCursor": None, "hasMore": False}


def listing(
    operation_id: str,
    summary: str,
    answer: Any,
    access: str,
    element_example: Any,
    *,
    filters: Sequence[Query] = (),
    paging: Sequence[Query] = (LIMIT, CURSOR),
) -> Op:
    """A paged list: the paging parameters, then `filters`; its example a one-element page."""
    return Op(
        operation_id,
        summary,
        {200: answer},
        access=access,
        query=(*paging, *filters),
        answer_example=page(element_example),
    )
