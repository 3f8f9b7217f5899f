"""What the applicant portal pages show (docs/reference/portal.md): the session's
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

from gatehouse import applications
from gatehouse.applicants.sessions import PortalContext
from gatehouse.applications import ChecklistItem, documents_of, read_checklist
from gatehouse.domain.info_requests import ACTIVE_REQUEST_STATES, OWED_ITEM_STATES, RequestState
from gatehouse.domain.status import ApplicationStatus
from gatehouse.runtime import Runtime
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


def N_(message: str) -> str:
    """Marks a message for the portal's catalogues; the page translates it when it shows it
    (docs/reference/portal.md, "Languages")."""
    return message


# The application status in the applicant's words (docs/reference/tenant-api.md §2.2).
PLAIN_STATUS: dict[str, str] = {
    ApplicationStatus.PENDING: N_("We have your application and are reviewing it."),
    ApplicationStatus.NEEDS_INFO: N_("We need more information from you before we can continue."),
    ApplicationStatus.HOLD: N_("Your application is on hold for now. We will be in touch."),
    ApplicationStatus.PENDING_APPROVAL: N_("Your application is in its final review."),
    ApplicationStatus.ACTIVE: N_("Your application has been approved."),
    ApplicationStatus.REJECTED: N_("Your application was not approved."),
}
PLAIN_STATUS_NOT_SUBMITTED = N_("Your application is started. Fill in the form and submit it.")
PLAIN_STATUS_OTHER = N_("Your application is being processed.")
STATUS_TITLES: dict[str, str] = {
    ApplicationStatus.PENDING: N_("In review"),
    ApplicationStatus.NEEDS_INFO: N_("Information needed"),
    ApplicationStatus.HOLD: N_("On hold"),
    ApplicationStatus.PENDING_APPROVAL: N_("Final review"),
    ApplicationStatus.ACTIVE: N_("Approved"),
    ApplicationStatus.REJECTED: N_("Not approved"),
}
STATUS_TITLE_NOT_SUBMITTED = N_("Not submitted yet")


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
    """One thing the applicant owes; the page words it by `kind` (answer, upload, form)
    in the applicant's language."""

    kind: str
    href: str
    label: str = ""
    count: int = 0
    seq: int = 0


@dataclass
class PortalView:
    me: Me
    application: Application
    requests: list[RequestEntry] = field(default_factory=list)
    checklist: list[ChecklistItem] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)

    @property
    def plain_status(self) -> str:
        if self.me.status == ApplicationStatus.PENDING and self.me.submitted_at is None:
            return PLAIN_STATUS_NOT_SUBMITTED
        return PLAIN_STATUS.get(self.me.status, PLAIN_STATUS_OTHER)

    @property
    def status_title(self) -> str:
        if self.me.status == ApplicationStatus.PENDING and self.me.submitted_at is None:
            return STATUS_TITLE_NOT_SUBMITTED
        return STATUS_TITLES.get(self.me.status, self.me.status)

    @property
    def required_items(self) -> list[ChecklistItem]:
        return [item for item in self.checklist if item.get("required")]

    @property
    def satisfied_required(self) -> int:
        return sum(1 for item in self.required_items if item.get("satisfied"))

    @property
    def decided(self) -> bool:
        return self.me.status in (ApplicationStatus.ACTIVE, ApplicationStatus.REJECTED)

    def owed(self) -> list[Step]:
        """What the applicant can still do, most urgent first: open requests, missing
        uploads and the form. Checks done elsewhere are never listed here (`by_others`),
        and once the application is decided nothing but an open request is owed."""
        steps: list[Step] = []
        for entry in self.requests:
            waiting = sum(1 for item in entry.items if item.status in OWED_ITEM_STATES)
            if entry.request.status == RequestState.OPEN and waiting:
                steps.append(
                    Step("answer", "/portal/requests", count=waiting, seq=entry.request.seq)
                )
        if self.decided:
            return steps
        for item in self.required_items:
            if not item.get("satisfied") and item.get("kind") == "document":
                label = str(item.get("label") or "")
                steps.append(Step("upload", "/portal/upload-documents", label=label))
        if self.me.submitted_at is None:
            steps.append(Step("form", "/portal/form-parser"))
        return steps

    def by_others(self) -> list[str]:
        """Labels of the required checks still open that others carry out (a verification
        done elsewhere): the applicant is told they are under way, never asked to do them."""
        if self.decided:
            return []
        return [
            str(item.get("label") or "")
            for item in self.required_items
            if not item.get("satisfied") and item.get("kind") == "verification"
        ]


async def load_view(
    session: AsyncSession,
    context: PortalContext,
    *,
    with_checklist: bool = True,
    with_documents: bool = False,
) -> PortalView:
    # The session check found it a moment ago, and applications are never deleted.
    application = await session.get_one(Application, context.application_id)
    requests = await applications.info_requests_of(session, application.id)
    items = await applications.items_of(session, [request.id for request in requests])
    current = [
        RequestEntry(request, items[request.id])
        for request in requests
        if request.status in ACTIVE_REQUEST_STATES
    ]
    open_items = sum(
        1
        for entry in current
        for item in entry.items
        if entry.request.status == RequestState.OPEN and item.status in OWED_ITEM_STATES
    )
    me = Me(
        client_id=application.id,
        email=context.email,
        role=context.role,
        status=application.status,
        company_name=application.company_name,
        submitted_at=application.submitted_at,
        rejection_reason=(
            application.rejection_reason
            if application.status == ApplicationStatus.REJECTED
            else None
        ),
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
    for decision in await applications.decisions_of(session, application_id):
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


async def checklist_labels_of(session: AsyncSession, application: Application) -> dict[str, Any]:
    """The translated labels (`labels`) of the intake's checklist items, by item key."""
    intake = await session.get(Intake, application.label_id) if application.label_id else None
    checklist = intake.checklist if intake is not None else None
    return {
        str(entry.get("key")): entry.get("labels")
        for entry in checklist or []
        if isinstance(entry, dict) and entry.get("labels")
    }


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
                select(LoginLink).where(
                    LoginLink.token_hash.in_(runtime.crypto.hash_candidates(token))
                )
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
