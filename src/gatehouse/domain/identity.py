"""Applicant identity and provisioning input rules (docs/reference/tenant-api.md §5.1, §5.2).

Pure functions: normalisation of the provisioning fields, the identity key
the unique constraint enforces, the externalRef conflict rule, and the
redirectPath allow-list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gatehouse.domain.normalize import cut_text, normalize_email

# docs/reference/tenant-api.md §5.2: any other redirectPath is ignored.
REDIRECT_PATHS = frozenset(
    {"/upload-documents", "/status", "/form-parser", "/dashboard", "/requests"}
)


class InvalidEmail(ValueError):
    """The email breaks docs/reference/tenant-api.md §5.1: trimmed, lowercased, contains `@`,
    at most 320.
    """


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
    """Normalise the fields of docs/reference/tenant-api.md §5.1; raises InvalidEmail."""
    normalized = normalize_email(email)
    if normalized is None:
        raise InvalidEmail("email must contain @ and be at most 320 characters")
    ref = cut_text(external_ref) or None
    company = cut_text(company_name) or normalized[:200]
    return Applicant(email=normalized, external_ref=ref, company_name=company)


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
