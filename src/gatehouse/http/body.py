"""Reading JSON bodies after authentication (CONTRACT §1.2 step 7).

Endpoints declare no FastAPI body parameters: FastAPI would parse the body
before the authentication dependency runs, answering 400 where 401 is due.
Instead they call `parse_body` and document the schema with `body_schema`.
"""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from fastapi import Request
from pydantic import BaseModel, ValidationError

from gatehouse.http.errors import INVALID_ARGUMENT, ApiError, validation_details

Model = TypeVar("Model", bound=BaseModel)

# Models referenced by `body_schema`, added to the OpenAPI components.
SCHEMAS: dict[str, type[BaseModel]] = {}


async def parse_body(request: Request, model: type[Model]) -> Model:
    raw = await request.body()
    if not raw.strip():
        data: Any = {}
    else:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise ApiError(
                INVALID_ARGUMENT,
                "The body is not valid JSON.",
                details=[{"field": "body", "issue": "malformed JSON"}],
            ) from None
    if not isinstance(data, dict):
        raise ApiError(
            INVALID_ARGUMENT,
            "The body must be a JSON object.",
            details=[{"field": "body", "issue": "expected a JSON object"}],
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ApiError(
            INVALID_ARGUMENT,
            "The request body is not valid.",
            details=validation_details(exc.errors()),  # type: ignore[arg-type]
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
