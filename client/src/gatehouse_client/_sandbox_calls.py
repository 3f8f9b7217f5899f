"""Calls of the sandbox routes (README: "Sandbox").

Only a sandbox tenant has them; for any other tenant the server answers 404.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gatehouse_client._calls import Call, drop_none, idempotency_key_for, object_body, segment
from gatehouse_client._models import Application
from gatehouse_client._retry import Safety

__all__ = ["SANDBOX_ACTIONS", "simulate"]

# The actions `simulate` takes, as the server documents them.
SANDBOX_ACTIONS: tuple[str, ...] = (
    "submit",
    "request_info",
    "respond",
    "approve",
    "reject",
    "hold",
    "release",
)


def simulate(
    client_id: str,
    action: str,
    *,
    comment: str | None = None,
    rejection_reason: str | None = None,
    items: Sequence[Mapping[str, str]] | None = None,
    idempotency_key: str | None = None,
    idempotent: bool = True,
) -> Call[Application]:
    """POST /v1/sandbox/applications/{clientId}/simulate: 200 with the application.

    Runs one step of the applicant's or the staff's work, with the same rules,
    history, events and webhooks. A write: repeated after an ambiguous failure
    only with its Idempotency-Key (the server replays the first outcome). The
    action is sent as given, so a server that learns new actions needs no new
    client; an action the state does not allow is FailedPrecondition.
    ``items`` (``request_info`` only): the request's items, ``[{"type", "prompt"}]`` as
    the staff API takes them; without it the server raises one default question.
    """
    if not isinstance(action, str) or not action:
        raise ValueError(f"action is one of {', '.join(SANDBOX_ACTIONS)}")
    return Call(
        "POST",
        "/".join(["/v1/sandbox/applications", segment(client_id), "simulate"]),
        lambda _s, b: Application.from_json(object_body(b)),
        Safety.KEYED,
        body=drop_none(
            {
                "action": action,
                "comment": comment,
                "rejectionReason": rejection_reason,
                "items": None if items is None else [dict(item) for item in items],
            }
        ),
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )
