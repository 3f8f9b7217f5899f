"""Request bodies of the tenant API and their normalisation (docs/reference/tenant-api.md §5.1,
§5.2, §5.6, §5.7).

Models are strict: a field of the wrong JSON type is 400 invalid-argument
with details (docs/reference/tenant-api.md §4.1); unknown fields are ignored.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from gatehouse.domain.identity import (
    Applicant,
    InvalidEmail,
    InvalidExternalRef,
    normalize_applicant,
)
from gatehouse.domain.normalize import email_identity
from gatehouse.errors import invalid_argument


class _Body(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class ProvisionBody(_Body):
    """POST /v1/applications (docs/reference/tenant-api.md §5.1)."""

    email: str
    externalRef: str | None = None
    companyName: str | None = None
    labelId: str | None = None

    def applicant(self) -> Applicant:
        try:
            return normalize_applicant(self.email, self.externalRef, self.companyName)
        except InvalidEmail as exc:
            raise invalid_argument("email is not valid.", "email", str(exc)) from None
        except InvalidExternalRef as exc:
            raise invalid_argument("externalRef is not valid.", "externalRef", str(exc)) from None


class LoginSessionBody(ProvisionBody):
    """POST /v1/login-sessions (docs/reference/tenant-api.md §5.2)."""

    redirectPath: str | None = None


class ReissueBody(_Body):
    """POST /v1/applications/{clientId}/login-sessions (docs/reference/tenant-api.md §5.6)."""

    email: str | None = None
    redirectPath: str | None = None


class MemberBody(_Body):
    """POST /v1/applications/{clientId}/members (docs/reference/tenant-api.md §5.7)."""

    email: str

    def normalized_email(self) -> str:
        try:
            return email_identity(self.email)
        except InvalidEmail as exc:
            raise invalid_argument("email is not valid.", "email", str(exc)) from None
