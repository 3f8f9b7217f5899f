"""What the applicant portal pages show (issue 6; CONTRACT §5): the session's
application in plain words, what is owed next, requests, checklist, form.

Reads only; every change goes through `services.portal_actions` and
`services.documents`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.runtime import Runtime
from gatehouse.services import applications_repo as repo
from gatehouse.services.application_reads import documents_of, read_checklist
from gatehouse.services.portal_sessions import PortalContext
from gatehouse.storage.tables.applications import (
    Application,
    Decision,
    Document,
    InfoRequest,
    InfoRequestItem,
    Intake,
    LoginLink,
    Member,
)

# The application status in the applicant's words (spec 1 §2.2).
PLAIN_STATUS = {
    "pending": "We have your application and are reviewing it.",
    "needs_info": "We need more information from you before we can continue.",
    "hold": "Your application is on hold for now. We will be in touch.",
    "pending_approval": "Your application is in its final review.",
    "active": "Your application has been approved.",
    "rejected": "Your application was not approved.",
}
PLAIN_STATUS_NOT_SUBMITTED = "Your application is started. Fill in the form and submit it."
STATUS_TITLES = {
    "pending": "In review",
    "needs_info": "Information needed",
    "hold": "On hold",
    "pending_approval": "Final review",
    "active": "Approved",
    "rejected": "Not approved",
}
OPEN_ITEM_STATES = ("open", "reopened")
CURRENT_REQUEST_STATES = ("open", "responded")


@dataclass(frozen=True, slots=True)
class Me:
    """The signed-in member and their application, as every page shows them."""

    client_id: str
    email: str
    role: str
    status: str
    company_name: str | None
    submitted_at: datetime | None
    rejection_reason: str | None
    csrf_token: str
    open_items: int


@dataclass(frozen=True, slots=True)
class RequestEntry:
    request: InfoRequest
    items: list[InfoRequestItem]


@dataclass(frozen=True, slots=True)
class Step:
    text: str
    href: str


@dataclass
class PortalView:
    me: Me
    application: Application
    requests: list[RequestEntry] = field(default_factory=list)
    checklist: list[dict[str, Any]] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)

    @property
    def plain_status(self) -> str:
        if self.me.status == "pending" and self.me.submitted_at is None:
            return PLAIN_STATUS_NOT_SUBMITTED
        return PLAIN_STATUS.get(self.me.status, "Your application is being processed.")

    @property
    def status_title(self) -> str:
        if self.me.status == "pending" and self.me.submitted_at is None:
            return "Not submitted yet"
        return STATUS_TITLES.get(self.me.status, self.me.status)

    @property
    def required_items(self) -> list[dict[str, Any]]:
        return [item for item in self.checklist if item.get("required")]

    @property
    def satisfied_required(self) -> int:
        return sum(1 for item in self.required_items if item.get("satisfied"))

    def owed(self) -> list[Step]:
        """What the applicant still owes, most urgent first."""
        steps: list[Step] = []
        for entry in self.requests:
            waiting = sum(1 for item in entry.items if item.status in OPEN_ITEM_STATES)
            if entry.request.status == "open" and waiting:
                noun = "item" if waiting == 1 else "items"
                steps.append(
                    Step(
                        f"Answer {waiting} {noun} of information request {entry.request.seq}",
                        "/portal/requests",
                    )
                )
        for item in self.required_items:
            if item.get("satisfied"):
                continue
            if item.get("kind") == "document":
                steps.append(Step(f"Upload: {item.get('label')}", "/portal/upload-documents"))
            elif item.get("kind") == "verification":
                steps.append(
                    Step(f"Complete the check: {item.get('label')}", "/portal/upload-documents")
                )
        if self.me.submitted_at is None:
            steps.append(Step("Fill in and submit the application form", "/portal/form-parser"))
        return steps


async def load_view(
    session: AsyncSession,
    context: PortalContext,
    *,
    with_checklist: bool = True,
    with_documents: bool = False,
) -> PortalView:
    application = await session.get(Application, context.application_id)
    assert application is not None  # the session check found it a moment ago
    requests = await repo.info_requests_of(session, application.id)
    items = await repo.items_of(session, [request.id for request in requests])
    current = [
        RequestEntry(request, items[request.id])
        for request in requests
        if request.status in CURRENT_REQUEST_STATES
    ]
    open_items = sum(
        1
        for entry in current
        for item in entry.items
        if entry.request.status == "open" and item.status in OPEN_ITEM_STATES
    )
    me = Me(
        client_id=application.id,
        email=context.email,
        role=context.role,
        status=application.status,
        company_name=application.company_name,
        submitted_at=application.submitted_at,
        rejection_reason=application.rejection_reason if application.status == "rejected" else None,
        csrf_token=context.csrf_token,
        open_items=open_items,
    )
    view = PortalView(me=me, application=application, requests=current)
    if with_checklist:
        view.checklist = (await read_checklist(session, application.tenant_id, application.id))[
            "data"
        ]
    if with_documents:
        view.documents = await documents_of(session, application.id)
    return view


async def latest_comment(session: AsyncSession, application_id: str) -> Decision | None:
    """The newest decision that carries an applicant-visible comment."""
    for decision in await repo.decisions_of(session, application_id):
        if decision.comment:
            return decision
    return None


async def form_fields_of(session: AsyncSession, application: Application) -> list[dict[str, Any]]:
    """The intake's form fields (`Intake.form_fields`), in configured order."""
    if not application.label_id:
        return []
    intake = await session.get(Intake, application.label_id)
    fields = intake.form_fields if intake is not None else []
    return [entry for entry in fields or [] if isinstance(entry, dict) and entry.get("key")]


def form_values(application: Application) -> dict[str, Any]:
    """Stored answers keyed as the form names its inputs (`field.<key>`)."""
    values: dict[str, Any] = {"companyName": application.company_name or ""}
    for key, value in (application.form_data or {}).items():
        values[f"field.{key}"] = value
    return values


def missing_required(fields: list[dict[str, Any]], application: Application) -> dict[str, str]:
    """An error per required form field the saved draft leaves empty."""
    errors: dict[str, str] = {}
    stored = application.form_data or {}
    for entry in fields:
        if not entry.get("required"):
            continue
        value = stored.get(entry["key"])
        if value is None or value is False or (isinstance(value, str) and not value.strip()):
            errors[f"field.{entry['key']}"] = "Fill this in and save before submitting."
    if not (application.company_name or "").strip():
        errors["companyName"] = "Fill this in and save before submitting."
    return errors


def uploads_by_type(documents: list[Document]) -> dict[str, list[Document]]:
    grouped: dict[str, list[Document]] = {}
    for document in documents:
        grouped.setdefault(document.type, []).append(document)
    return grouped


async def link_usable(runtime: Runtime, token: str) -> bool:
    """Whether a sign-in link would be accepted now, consuming nothing.

    The interstitial (GET) answers 410 at once for a link the redemption
    (`services.portal_sessions.redeem_link`) would refuse: unknown, used,
    revoked, expired, or for a locked or erased application or a removed
    member. tests/pages check that GET and POST agree on each of these.
    """
    if not token or len(token) > 200:
        return False
    async with runtime.db.read() as session:
        link = (
            await session.execute(
                select(LoginLink).where(LoginLink.token_hash == runtime.crypto.hash_secret(token))
            )
        ).scalar_one_or_none()
        if link is None or link.used_at is not None or link.revoked_at is not None:
            return False
        if link.expires_at <= runtime.now():
            return False
        application = await session.get(Application, link.application_id)
        if application is None or application.erased_at is not None or application.locked:
            return False
        member = await session.get(Member, link.member_id)
        return member is not None and member.application_id == application.id
