"""What every dashboard form post shares: the signed-in viewer and their CSRF-checked form,
one action, and on a refusal the same page again with the refusal beside its field.

A route gives `form_action` two closures: `run` does the work (one service call, then the
redirect or page of success) and may raise `GatehouseError` for its own checks too; `render`
draws the page again from a `Refused`. The field a refusal marks comes from the error's
`field` (the service's name for it), translated by `fields` into the form's names.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from fastapi import Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse.dashboard.sessions import Viewer, checked_form, require_viewer
from gatehouse.domain.principals import Role
from gatehouse.errors import GatehouseError


@dataclass(frozen=True, slots=True)
class Refused:
    """A refused form: the error, and the form field it marks (None: the form as a whole)."""

    error: GatehouseError
    field: str | None

    @property
    def message(self) -> str:
        return self.error.message

    @property
    def status_code(self) -> int:
        return self.error.status_code

    @property
    def errors(self) -> dict[str, str]:
        """Form field → message, for the templates' field macros."""
        return {self.field: self.error.message} if self.field else {}


Run = Callable[[Viewer, FormData], Awaitable[Response]]
Render = Callable[[Viewer, FormData, Refused], Awaitable[Response]]


def form_field(error: GatehouseError, fields: Mapping[str, str], default: str | None) -> str | None:
    """The form field an error marks: its field as `fields` names it on this form, else
    `default` (the form's main field, or None for the form as a whole). A path into a list
    (`checklist[0].labels.de`) marks the list's field."""
    if error.field is None:
        return default
    root = error.field.split("[", 1)[0].split(".", 1)[0]
    return fields.get(error.field, fields.get(root, default))


async def form_action(
    request: Request,
    render: Render,
    run: Run,
    *,
    role: str = Role.ANALYST,
    fields: Mapping[str, str] | None = None,
    default: str | None = None,
) -> Response:
    """Check the viewer (`role` or higher) and the form, run the action; a refusal draws
    the page again with the refusal's status code."""
    viewer = await require_viewer(request, role)
    if isinstance(viewer, Response):
        return viewer
    form = await checked_form(request, viewer)
    if isinstance(form, Response):
        return form
    try:
        return await run(viewer, form)
    except GatehouseError as error:
        return await render(viewer, form, Refused(error, form_field(error, fields or {}, default)))
