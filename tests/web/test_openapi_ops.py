"""An operation's OpenAPI metadata is the `Op` decorating its route function
(web/openapi_ops.py): the document finds it through the route, by method and path, and a route
without one declares nothing (so the document falls back to FastAPI's default operationId,
which tests/api/test_openapi.py refuses)."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from starlette.responses import Response

from gatehouse.web.openapi import build_document
from gatehouse.web.openapi_ops import Op, declared_operations


def _app() -> FastAPI:
    router = APIRouter(prefix="/v1")

    @router.get("/things/{client_id}")
    @Op("getThing", "Get a thing", {200: None}, access="things:read")
    async def get_thing(client_id: str) -> Response:
        return Response(status_code=204)

    @router.post("/things")
    async def undeclared() -> Response:
        return Response(status_code=204)

    app = FastAPI(title="t", version="1", openapi_url=None)
    app.include_router(router)
    return app


def test_the_decorator_leaves_the_function_as_it_was() -> None:
    async def route() -> None:
        return None

    op = Op("doIt", "Do it", {204: None})
    assert op(route) is route
    assert declared_operations(FastAPI().routes) == {}


def test_operations_are_found_through_their_routes() -> None:
    declared = declared_operations(_app().routes)
    assert list(declared) == [("GET", "/v1/things/{client_id}")]
    assert declared["GET", "/v1/things/{client_id}"].operation_id == "getThing"


def test_the_document_uses_the_declared_op_and_nothing_for_a_bare_route() -> None:
    document = build_document(_app(), {}, description="d")
    read = document["paths"]["/v1/things/{clientId}"]["get"]
    assert read["operationId"] == "getThing"
    assert read["x-required-scope"] == "things:read"
    assert read["security"] == [{"apiKey": []}]
    bare = document["paths"]["/v1/things"]["post"]
    assert bare["operationId"] != "undeclared"
    assert "_" in bare["operationId"]
