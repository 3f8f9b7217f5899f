"""Routing by the first segment of the path, over a table built once.

FastAPI keeps every `include_router` as a nested router and, on each request,
walks all of them (twice: once to match, once to handle), with scope
bookkeeping at every route: with some 150 routes that was most of the cost of a
trivial request. This module flattens the app's routes once into a table keyed
by the first path segment (`v1`, `staff`, `verify`, `portal`, `dashboard`,
`static`, `healthz`...), so that a request only meets the routes of its own
surface, each first tested by a string comparison (static routes) or a prefix
test (routes with parameters) before its own `matches`.

What a request sees is what Starlette's router gives: the routes are tried in
the order they were added; the first full match (path and method) handles the
request; failing that, the first route whose path matched answers 405 through
`Route.handle` (the handler in web/handlers.py then lists every allowed method,
see `allowed_methods`); failing that, 404. Routes are the app's own `APIRoute`
objects, handled through their public `matches` and `handle`.

Limits: a router included with a prefix, dependencies, a body limit or form
limits cannot be flattened without FastAPI's include context; `install` then
leaves FastAPI's routing in place (tests/web/test_dispatch.py checks that the
app is flattened). `app.dependency_overrides` does not reach routes that came
from an included router (their handler was built without the app as the
override provider); nothing in Gatehouse uses overrides.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from fastapi import FastAPI
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute, Match, Route
from starlette.types import ASGIApp, Receive, Scope, Send

# Methods a route may offer; OPTIONS is always 405 (docs/reference/tenant-api.md §4.1).
CANDIDATE_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


class NotFlat(Exception):
    """The app has a route this table cannot hold; FastAPI's routing stays in place."""


def _first_segment(path: str) -> str:
    return path[1:].partition("/")[0]


def route_path(scope: Scope) -> str:
    """The path routes match against (as Starlette's `get_route_path`)."""
    path: str = scope["path"]
    root_path: str = scope.get("root_path", "")
    if root_path and path.startswith(root_path):
        if path == root_path:
            return ""
        if path[len(root_path)] == "/":
            return path[len(root_path) :]
    return path


def leaf_routes(routes: Sequence[BaseRoute]) -> Iterator[BaseRoute]:
    """Every route of `routes`, with included routers opened, in routing order."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is None:
            yield route
            continue
        context = getattr(route, "include_context", None)
        if context is None or not _neutral(context):
            raise NotFlat(f"router included with options: {route!r}")
        yield from leaf_routes(inner.routes)


def _neutral(context: Any) -> bool:
    """An include that added no prefix, dependencies or limits (only documentation)."""
    return (
        not getattr(context, "prefix", "")
        and not getattr(context, "dependencies", None)
        and getattr(context, "max_body_size", None) is None
        and not getattr(context, "form_limits", None)
    )


class _Entry:
    """A route, and what a path must look like before its `matches` is worth calling."""

    __slots__ = ("literal_segment", "prefix", "route", "static")

    def __init__(self, route: BaseRoute) -> None:
        path = getattr(route, "path", None)
        if not isinstance(route, Route) or not isinstance(path, str):
            raise NotFlat(f"not a plain route: {route!r}")
        self.route = route
        head, brace, _ = path.partition("{")
        # A static route matches one path exactly; otherwise the path starts with `head`.
        self.static: str | None = None if brace else path
        self.prefix = head
        # Whether the whole first segment is literal (`/v1/...`, not `/{x}` or `/a{x}`).
        self.literal_segment = self.static is not None or "/" in head[1:]

    def could_match(self, path: str) -> bool:
        if self.static is not None:
            return path == self.static
        return path.startswith(self.prefix)


class RouteTable:
    """The app's routes grouped by the literal first segment of their paths."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        entries = [_Entry(route) for route in leaf_routes(routes)]
        self.size = len(entries)
        groups: dict[str, list[_Entry]] = {
            _first_segment(e.prefix): [] for e in entries if e.literal_segment
        }
        any_group: list[_Entry] = []
        for entry in entries:
            if entry.literal_segment:
                groups[_first_segment(entry.prefix)].append(entry)
            else:
                # A path may match this route whatever its first segment: every group
                # holds it, in the routing order.
                any_group.append(entry)
                for group in groups.values():
                    group.append(entry)
        self._groups = {k: tuple(v) for k, v in groups.items()}
        self._any = tuple(any_group)
        # The path of a static route, and every route that could match it, in order.
        self._exact: dict[str, tuple[_Entry, ...]] = {}
        for entry in entries:
            if entry.static is not None and entry.static not in self._exact:
                path = entry.static
                self._exact[path] = tuple(e for e in self.candidates(path) if e.could_match(path))

    def candidates(self, path: str) -> tuple[_Entry, ...]:
        return self._groups.get(_first_segment(path), self._any)

    def match(self, scope: Scope) -> tuple[BaseRoute | None, Scope]:
        """The route to handle `scope` (a full match, else the first partial one)."""
        path = route_path(scope)
        exact = self._exact.get(path)
        partial: tuple[BaseRoute, Scope] | None = None
        for entry in exact if exact is not None else self.candidates(path):
            if exact is None and not entry.could_match(path):
                continue
            found, child_scope = entry.route.matches(scope)
            if found is Match.FULL:
                return entry.route, child_scope
            if found is Match.PARTIAL and partial is None:
                partial = (entry.route, child_scope)
        if partial is not None:
            return partial
        return None, {}

    def allowed_methods(self, scope: Scope) -> list[str]:
        """Every method some route of this path's surface offers (the Allow header)."""
        path = route_path(scope)
        entries = [e for e in self.candidates(path) if e.could_match(path)]
        methods = []
        for method in CANDIDATE_METHODS:
            probe = {**scope, "method": method}
            if any(e.route.matches(probe)[0] is Match.FULL for e in entries):
                methods.append(method)
        return methods


class Dispatch:
    """The app router's innermost ASGI step: HTTP through the table, the rest to FastAPI."""

    def __init__(self, app: FastAPI, fallback: ASGIApp) -> None:
        self.app = app
        self.fallback = fallback
        self._table: RouteTable | None = None
        self._built_for = -1

    @property
    def table(self) -> RouteTable:
        # Rebuilt when routes were added to the app after the first request.
        routes = self.app.router.routes
        if self._table is None or self._built_for != len(routes):
            self._table = RouteTable(routes)
            self._built_for = len(routes)
        return self._table

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.fallback(scope, receive, send)
            return
        if "router" not in scope:
            scope["router"] = self.app.router
        route, child_scope = self.table.match(scope)
        if route is None:
            raise HTTPException(status_code=404)
        scope.update(child_scope)
        await route.handle(scope, receive, send)


def install(app: FastAPI) -> bool:
    """Route the app's HTTP requests through a `RouteTable`; False when it cannot be flat."""
    try:
        RouteTable(app.router.routes)
    except NotFlat:
        return False
    router = app.router
    router.middleware_stack = Dispatch(app, router.middleware_stack)
    return True


def route_table(app: Any) -> RouteTable | None:
    """The table routing `app`'s requests, if `install` put one in place."""
    stack = getattr(getattr(app, "router", None), "middleware_stack", None)
    return stack.table if isinstance(stack, Dispatch) else None
