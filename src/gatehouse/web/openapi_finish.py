"""The last pass over /openapi.json (docs/api-reference.md, "Linters and generators"): what
integrators' tools need of the whole document, applied to every operation whoever wrote it,
so a new route complies without a line of its own.

- Every operation (paths and webhooks) has a tag and a security requirement: when its route
  or `Op` names none, its surface's (`SURFACE_TAGS`, `surface_security`); the document
  defines every tag it uses (`tags`, with a description).
- No schema publishes `default: null`, and a request field's other default is said in its
  description: an optional field is simply not required, and generators (openapi-typescript
  with its default options) would otherwise type it as always present.
- Header and schema components nobody references are dropped (a test's or a removed route's
  body model left in the registry).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

# The tag of an operation of each surface that names none, and what every tag is about.
SURFACE_TAGS = {
    "tenant": "tenant API",
    "staff": "staff API",
    "portal": "portal",
    "verify": "verification",
    None: "operations",
}
WEBHOOKS_TAG = "webhooks (sent by Gatehouse)"
TAG_DESCRIPTIONS = {
    "access": "Tenant API: lock and unlock an application's access (/v1).",
    "applications": "Tenant API: provision and read applications (/v1).",
    "intakes": "Tenant API: the tenant's intakes (/v1).",
    "login sessions": "Tenant API: single-use sign-in links for the portal (/v1).",
    "members": "Tenant API: an application's members (/v1).",
    "sandbox": "Tenant API: a sandbox tenant's simulated steps (/v1).",
    "webhooks": "Tenant API: webhook endpoints, secrets and deliveries (/v1).",
    "portal": "The applicant portal's JSON routes (/portal/api), on the portal session.",
    "verification": "The verification interface (/verify).",
    "verification sandbox": "The verification interface's sandbox (/verify/sandbox).",
    WEBHOOKS_TAG: "What Gatehouse POSTs to a registered endpoint: every event type and the "
    "verification callback, signed (docs/webhooks.md).",
}

Operation = dict[str, Any]


def _operations(items: Mapping[str, Any]) -> Iterable[Operation]:
    for item in items.values():
        for key, operation in item.items():
            if key in ("get", "put", "post", "patch", "delete") and isinstance(operation, dict):
                yield operation


def _tag_description(name: str) -> str:
    if name in TAG_DESCRIPTIONS:
        return TAG_DESCRIPTIONS[name]
    if name.startswith("staff"):
        return f"Staff API (/staff/v1): {name.split(':', 1)[-1].strip()}."
    return f"Operations: {name}."


def tag_and_secure(
    document: dict[str, Any],
    surface_of: Callable[[str], str | None],
    surface_security: Callable[[str | None], list[dict[str, list[str]]]],
) -> None:
    """Give every operation a tag and a security requirement, and define every tag."""
    for path, item in document.get("paths", {}).items():
        surface = surface_of(path)
        for operation in _operations({path: item}):
            if not operation.get("tags"):
                operation["tags"] = [SURFACE_TAGS.get(surface, SURFACE_TAGS[None])]
            operation.setdefault("security", surface_security(surface))
    for operation in _operations(document.get("webhooks", {})):
        operation.setdefault("tags", [WEBHOOKS_TAG])
        # Gatehouse sends these; the receiver checks their signature, no OpenAPI scheme.
        operation.setdefault("security", [])
    used = sorted(
        {
            tag
            for items in ("paths", "webhooks")
            for op in _operations(document.get(items, {}))
            for tag in op["tags"]
        }
    )
    document["tags"] = [{"name": name, "description": _tag_description(name)} for name in used]


def drop_null_defaults(schema: Any) -> None:
    """Remove `default: null` everywhere under `schema` (request models' optional fields)."""
    if isinstance(schema, dict):
        if "default" in schema and schema["default"] is None:
            del schema["default"]
        for value in schema.values():
            drop_null_defaults(value)
    elif isinstance(schema, list):
        for value in schema:
            drop_null_defaults(value)


def request_schemas(document: Mapping[str, Any]) -> list[str]:
    """The component schemas that request bodies name."""
    names = set()
    for operation in _operations(document.get("paths", {})):
        for media in operation.get("requestBody", {}).get("content", {}).values():
            ref = media.get("schema", {}).get("$ref", "")
            if ref.startswith("#/components/schemas/"):
                names.add(ref.rsplit("/", 1)[1])
    return sorted(names)


def describe_defaults(document: dict[str, Any]) -> None:
    """A request field's `default` moves into its description: the field may be left out,
    and generators that type a field with a default as always present (openapi-typescript's
    default options) would make callers send it."""
    schemas = document.get("components", {}).get("schemas", {})
    for name in request_schemas(document):
        for field in schemas.get(name, {}).get("properties", {}).values():
            if isinstance(field, dict) and "default" in field:
                value = field.pop("default")
                if value is not None:
                    said = f"Defaults to `{json.dumps(value)}` when left out."
                    field["description"] = f"{field.get('description', '')} {said}".strip()


def drop_unused(document: dict[str, Any], kind: str) -> None:
    """Drop the components of `kind` (`schemas`, `headers`) that nothing in use names, until
    none is left (a schema named only by an unused one goes too). A new mapping: a shared one
    stays whole."""
    components = document.get("components", {})
    kept = dict(components.get(kind, {}))
    outside = json.dumps({k: v for k, v in document.items() if k != "components"})
    outside += json.dumps({k: v for k, v in components.items() if k != kind})
    while True:
        texts = {name: json.dumps(value) for name, value in kept.items()}
        unused = [
            name
            for name in kept
            if (ref := f'"#/components/{kind}/{name}"') not in outside
            and not any(ref in text for other, text in texts.items() if other != name)
        ]
        if not unused:
            break
        for name in unused:
            del kept[name]
    components[kind] = kept


def finish(
    document: dict[str, Any],
    surface_of: Callable[[str], str | None],
    surface_security: Callable[[str | None], list[dict[str, list[str]]]],
) -> dict[str, Any]:
    tag_and_secure(document, surface_of, surface_security)
    drop_null_defaults(document.get("components", {}).get("schemas", {}))
    describe_defaults(document)
    drop_unused(document, "headers")
    drop_unused(document, "schemas")
    return document
