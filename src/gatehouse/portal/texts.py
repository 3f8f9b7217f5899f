"""What the portal's pages say that is made in Python, marked for translation
(docs/reference/portal.md, "Languages"): notices, status words, and refusals in the
applicant's words. Each message is translated where the page is rendered.

A refusal from a service (an upload's type, an empty answer, a closed request) is shown as
one of these messages, chosen by the field and issue of the error, never as the service's
English text.
"""

from __future__ import annotations

from gatehouse.domain.status import TextTooLong
from gatehouse.errors import GatehouseError
from gatehouse.web.i18n import N_

NOTICES = {
    "saved": N_("Your draft is saved."),
    "submitted": N_("Thank you. Your application is submitted."),
    "uploaded": N_("Thank you. Your file is uploaded."),
    "answered": N_("Thank you. Your answer is sent."),
}

# Status words on badges (applications, requests, items).
BADGE_WORDS = {
    "pending": N_("pending"),
    "needs_info": N_("needs info"),
    "hold": N_("on hold"),
    "pending_approval": N_("final review"),
    "active": N_("approved"),
    "rejected": N_("not approved"),
    "open": N_("open"),
    "responded": N_("responded"),
    "reopened": N_("reopened"),
    "answered": N_("answered"),
    "accepted": N_("accepted"),
    "closed": N_("closed"),
    "cancelled": N_("cancelled"),
}

SIGNED_OUT = N_("You are signed out")
SIGNED_OUT_HELP = N_(
    "Open the sign-in link you were given again, or ask the service that sent it for a new one."
)
SIGNED_OUT_BY_YOU = N_("To come back, open a new sign-in link from the service that sent you.")
NO_ACCESS = N_("Access is not available")
NO_ACCESS_HELP = N_(
    "This application cannot be opened any more. Contact the service that sent you."
)
FORM_EXPIRED = N_("The form expired")
FORM_EXPIRED_HELP = N_("Go back, reload the page and try again.")

FILL_IN = N_("Fill this in.")
CONFIRM = N_("Tick the box to confirm before you submit.")
NOT_SUBMITTED = N_("Your application is not submitted yet: correct the fields listed below.")
NOT_SAVED = N_("Your answers were not saved: correct the fields listed below.")
CHOOSE_FILE = N_("Choose a file to upload.")
ANSWER_NEEDED = N_("Write your answer.")
ANSWER_TOO_LONG = N_("Your answer is too long.")
VALUE_TOO_LONG = N_("This is too long.")
FILE_KIND = N_("The file must be a PDF, PNG, JPEG or WebP file.")
FILE_EMPTY = N_("The file is empty.")
FILE_CONTENT = N_("The file's content is not what its name says. Send a PDF, PNG, JPEG or WebP.")
FILE_TOO_LARGE = N_("The file is too large.")
FILE_REFUSED = N_("The file was refused by the virus scanner.")
TRY_LATER = N_("Files cannot be checked right now. Try again in a few minutes.")
NOT_ANSWERABLE = N_(
    "This request cannot be answered any more. Reload the page to see where it stands."
)
NOT_ACCEPTED = N_("This was not accepted. Check it and try again.")

_BY_ISSUE = {
    "type not accepted": FILE_KIND,
    "empty": FILE_EMPTY,
    "content not recognised": FILE_CONTENT,
    "content does not match the declared type": FILE_CONTENT,
    "too large": FILE_TOO_LARGE,
    "malware found": FILE_REFUSED,
}


def refusal(error: GatehouseError) -> str:
    """The message (untranslated) the applicant sees for a refused post."""
    issue = error.issue or ""
    field = error.field or ""
    if issue in _BY_ISSUE:
        return _BY_ISSUE[issue]
    if error.status_code == 413:
        return FILE_TOO_LARGE
    if error.status_code == 503:
        return TRY_LATER
    if error.status_code == 403:
        return NO_ACCESS_HELP
    if error.code == "failed-precondition":
        return NOT_ANSWERABLE
    if field == "answer":
        return ANSWER_TOO_LONG if isinstance(error, TextTooLong) else ANSWER_NEEDED
    if field == "file" or field == "type":
        return CHOOSE_FILE
    if field.startswith("fields.") or field == "companyName":
        return VALUE_TOO_LONG
    return NOT_ACCEPTED
