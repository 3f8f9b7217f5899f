"""The applicant's side of an application through the portal (docs/reference/portal.md):
sign-in links and portal sessions, the form draft, answers, uploads' checklist, submission.

What others may use: the portal's session (`PortalContext`, `context_for_token`), its use
cases and reads, and `mark_submitted` (the sandbox's simulated submission).
"""

from gatehouse.applicants.queries import (
    checklist_labels_of,
    form_fields_of,
    form_values,
    latest_comment,
    link_usable,
    load_view,
    missing_required,
    uploads_by_type,
)
from gatehouse.applicants.schemas import FormDraft, PortalMe
from gatehouse.applicants.service import (
    AnswerBody,
    FormBody,
    answer_item,
    mark_submitted,
    read_me,
    save_form_draft,
    submit,
)
from gatehouse.applicants.sessions import (
    LinkUnusable,
    PortalContext,
    context_for_token,
    end_session,
    landing_path,
    redeem_link,
)

__all__ = [
    "AnswerBody",
    "FormBody",
    "FormDraft",
    "LinkUnusable",
    "PortalContext",
    "PortalMe",
    "answer_item",
    "checklist_labels_of",
    "context_for_token",
    "end_session",
    "form_fields_of",
    "form_values",
    "landing_path",
    "latest_comment",
    "link_usable",
    "load_view",
    "mark_submitted",
    "missing_required",
    "read_me",
    "redeem_link",
    "save_form_draft",
    "submit",
    "uploads_by_type",
]
