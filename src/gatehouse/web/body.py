"""Reading JSON bodies after authentication (docs/reference/tenant-api.md §4.1).

Endpoints declare no FastAPI body parameters: FastAPI would parse the body
before the authentication dependency runs, answering 400 where 401 is due.
Instead they call `parse_body` and document the schema with `body_schema`.
The body's size is bounded at the edge (`web/edge.py`); every key and string of
the decoded document passes the text rule of `web/text.py` before the model
sees it.
"""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from fastapi import Request
from pydantic import BaseModel, ValidationError

from gatehouse.errors import INVALID_ARGUMENT, GatehouseError
from gatehouse.web import text
from gatehouse.web.errors import validation_details

Model = TypeVar("Model", bound=BaseModel)

# Models referenced by `body_schema`, added to the OpenAPI components.
SCHEMAS: dict[str, type[BaseModel]] = {}


def decode_json(raw: bytes) -> Any:
    """The decoded document, once every key and string passes the text rule, with its
    single-line values trimmed (`web/text.py`).

    A document orjson refuses because it carries a control character or a lone
    surrogate (`"\\ud800"`) is decoded again leniently, only to name the field at
    fault; anything else it refuses is malformed.
    """
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        problem = text.check_json_body(raw)
        if problem is None:
            raise malformed() from None
        raise problem.error() from None
    problem = text.check_json(data)
    if problem is not None:
        raise problem.error()
    return text.trim_json(data)


def malformed() -> GatehouseError:
    return GatehouseError(
        INVALID_ARGUMENT,
        "The body is not valid JSON.",
        details=[{"field": "body", "issue": "malformed JSON"}],
    )


async def parse_body(request: Request, model: type[Model]) -> Model:
    raw = await request.body()
    data: Any = decode_json(raw) if raw.strip() else {}
    if not isinstance(data, dict):
        raise GatehouseError(
            INVALID_ARGUMENT,
            "The body must be a JSON object.",
            details=[{"field": "body", "issue": "expected a JSON object"}],
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise GatehouseError(
            INVALID_ARGUMENT,
            "The request body is not valid.",
            details=validation_details(exc.errors()),
        ) from None


def body_schema(model: type[BaseModel], *, required: bool = True) -> dict[str, Any]:
    """`openapi_extra` for a route whose JSON body is `model`."""
    SCHEMAS[model.__name__] = model
    return {
        "requestBody": {
            "required": required,
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}
            },
        }
    }
