"""Response shapes of staff members, personal tokens, tenants and API keys
(docs/reference/staff-api.md §3, §4, §9)."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict


class RetentionView(TypedDict):
    """Days after which the retention sweep erases a case (docs/operations.md, "Retention");
    null keeps it."""

    rejectedDays: int | None
    abandonedDays: int | None


class TenantView(TypedDict):
    """A tenant; `environment` is `live` or `sandbox`, fixed at creation."""

    tenantId: str
    name: str
    status: Literal["active", "suspended"]
    createdAt: str
    updatedAt: str
    webhookEndpointCap: int | None
    environment: Literal["live", "sandbox"]
    displayName: str | None
    accentColor: str | None
    logoUrl: str | None
    retention: RetentionView


class TenantPage(TypedDict):
    data: list[TenantView]
    nextCursor: str | None
    hasMore: bool


class CreatedApiKey(TypedDict):
    """A new API key: `apiKey` is shown this once."""

    keyId: str
    apiKey: str
    name: str | None
    scopes: list[str]
    createdAt: str


class RevokedApiKey(TypedDict):
    keyId: str
    status: Literal["revoked"]


class Invite(TypedDict):
    """A single-use invite link, where the person sets a password and a second factor."""

    inviteUrl: str
    inviteExpiresAt: str


class CreatedStaffMember(Invite):
    """A new staff member: `token` (a personal API token) is shown this once."""

    staffId: str
    email: str
    role: str
    token: str


class StaffMemberView(TypedDict):
    """A staff member as the staff list shows them."""

    staffId: str
    email: str
    role: str
    status: Literal["active", "deactivated"]
    createdAt: str
    lastSignInAt: str | None
    mfa: bool
    factors: list[Literal["totp", "passkey"]]
    passwordSet: bool


class StaffList(TypedDict):
    data: list[StaffMemberView]


class PersonalToken(TypedDict):
    """One of the caller's personal tokens; never the token itself."""

    tokenId: str
    name: str
    status: Literal["active", "expired", "revoked"]
    createdAt: str
    expiresAt: str | None
    revokedAt: str | None


class PersonalTokenList(TypedDict):
    data: list[PersonalToken]


class CreatedPersonalToken(TypedDict):
    """A new personal token: `token` is shown this once."""

    tokenId: str
    token: str
    name: str
    expiresAt: str
