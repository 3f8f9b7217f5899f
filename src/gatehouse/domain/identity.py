"""Applicant identity and provisioning input rules (docs/reference/tenant-api.md §5.1, §5.2).

Pure functions: normalisation of the provisioning fields, the identity key
the unique constraint enforces, the externalRef conflict rule, and the
redirectPath allow-list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gatehouse.domain.normalize import (
    MAX_TEXT,
    InvalidEmail,
    NotCanonical,
    canonical_text,
    cut_text,
    email_identity,
    trim,
)

# docs/reference/tenant-api.md §5.2: any other redirectPath is ignored.
REDIRECT_PATHS = frozenset(
    {"/upload-documents", "/status", "/form-parser", "/dashboard", "/requests"}
)


__all__ = [
    "ERASED_PREFIX",
    "REDIRECT_PATHS",
    "Applicant",
    "InvalidEmail",
    "InvalidExternalRef",
    "allowed_redirect",
    "erased_identity",
    "erased_identity_candidates",
    "identity_key",
    "is_bound_to_other_email",
    "normalize_applicant",
]


class InvalidExternalRef(ValueError):
    """The externalRef breaks the identity rule (docs/identity.md); `str()` says why."""


@dataclass(frozen=True, slots=True)
class Applicant:
    """Normalised provisioning input.

    `external_ref` is None when absent or empty after trimming; `company_name`
    defaults to the email (docs/reference/tenant-api.md §5.1).
    """

    email: str
    external_ref: str | None
    company_name: str

    @property
    def identity(self) -> str:
        return identity_key(self.external_ref, self.email)


def identity_key(external_ref: str | None, email: str) -> str:
    """Tenant-scoped identity: externalRef when nonempty, else the email (rule 1)."""
    if external_ref:
        return f"ref:{external_ref}"
    return f"email:{email}"


ERASED_PREFIX = "erased:"


def erased_identity(identity: str, pseudonymize: Callable[[str], str]) -> str:
    """What an erased application keeps of its identity: a keyed pseudonym.

    It still blocks re-provisioning the same identity (410, docs/reference/tenant-api.md §5.1 rule
    6)
    without keeping the email or externalRef in clear.
    """
    return ERASED_PREFIX + pseudonymize(identity)


def erased_identity_candidates(digests: Iterable[str]) -> list[str]:
    """Every pseudonym an erased identity may carry: one per digest of the key ring."""
    return [ERASED_PREFIX + digest for digest in digests]


def normalize_applicant(
    email: object, external_ref: str | None = None, company_name: str | None = None
) -> Applicant:
    """Normalise the fields of docs/reference/tenant-api.md §5.1 under the identity rule of
    docs/identity.md; raises InvalidEmail or InvalidExternalRef."""
    normalized = email_identity(email)
    ref = _external_ref(external_ref)
    company = cut_text(company_name) or normalized[:200]
    return Applicant(email=normalized, external_ref=ref, company_name=company)


def _external_ref(value: str | None) -> str | None:
    """Trimmed, in NFC (refused when sent in neither NFC nor NFD), cut to 200; None when
    empty."""
    if value is None:
        return None
    try:
        return canonical_text(trim(value))[:MAX_TEXT] or None
    except NotCanonical as exc:
        raise InvalidExternalRef(str(exc)) from None


def is_bound_to_other_email(applicant_email: str | None, email: str) -> bool:
    """Rule 5: an externalRef identity whose stored applicant email differs (409)."""
    return applicant_email is not None and applicant_email != email


def allowed_redirect(path: object) -> str | None:
    """The redirectPath when it is on the allow-list of docs/reference/tenant-api.md
    §5.2, else None.
    """
    if isinstance(path, str) and path in REDIRECT_PATHS:
        return path
    return None
