"""The bare FastAPI app: the floor of the framework that Gatehouse is built on.

One route, `GET /hello`, answering `{"message": "hello"}` the way FastAPI's own
"hello world" does (a returned dict, FastAPI's default JSON response), with no
Gatehouse code, middleware, settings or database. OpenAPI and the docs pages
are switched off, as they are in Gatehouse, so the app has exactly one route.

`bench/server.py --app bare` serves it with the same server, options and number
of processes as Gatehouse; this module must not import `gatehouse`, so that the
bare server's memory and start-up are FastAPI's alone.
"""

from __future__ import annotations

from fastapi import FastAPI

HELLO_PATH = "/hello"


def create_app() -> FastAPI:
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    # response_model=None: no response model, as in FastAPI's own hello world
    # (which has no return annotation; this one is annotated for the type checker).
    @app.get(HELLO_PATH, response_model=None)
    async def hello() -> dict[str, str]:
        return {"message": "hello"}

    return app
