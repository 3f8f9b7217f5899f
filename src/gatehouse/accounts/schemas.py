"""Response shapes of staff members, personal tokens, tenants and API keys
(docs/reference/staff-api.md §3, §4, §9)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, cast

from typing_extensions import TypedDict

from gatehouse.accounts.branding import logo_url
from gatehouse.storage.tables.core import StaffMember, Tenant
from gatehouse.storage.tables.staff_identity import StaffCredential, StaffToken
from gatehouse.timeutil import format_ts


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


def token_view(token: StaffToken, now: datetime) -> PersonalToken:
    status: Literal["active", "expired", "revoked"]
    if token.revoked_at is not None:
        status = "revoked"
    elif token.expires_at is not None and token.expires_at <= now:
        status = "expired"
    else:
        status = "active"
    return {
        "tokenId": token.id,
        "name": token.name,
        "status": status,
        "createdAt": format_ts(token.created_at),
        "expiresAt": format_ts(token.expires_at),
        "revokedAt": format_ts(token.revoked_at),
    }


def tenant_view(tenant: Tenant) -> TenantView:
    """The tenant body of docs/reference/staff-api.md §4 (plus `updatedAt`; `environment`
    as docs/sandbox.md says; the branding of docs/reference/portal.md, "Branding")."""
    return {
        "tenantId": tenant.id,
        "name": tenant.name,
        "status": cast(Literal["active", "suspended"], tenant.status),
        "createdAt": format_ts(tenant.created_at),
        "updatedAt": format_ts(tenant.updated_at),
        "webhookEndpointCap": tenant.webhook_endpoint_cap,
        "environment": cast(Literal["live", "sandbox"], tenant.environment),
        "displayName": tenant.display_name,
        "accentColor": tenant.accent_color,
        "logoUrl": logo_url(tenant),
        "retention": {
            "rejectedDays": tenant.retention_rejected_days,
            "abandonedDays": tenant.retention_abandoned_days,
        },
    }


def staff_view(
    member: StaffMember, credential: StaffCredential | None, passkeys: int
) -> StaffMemberView:
    totp = credential is not None and credential.totp_secret_encrypted is not None
    factors: list[Literal["totp", "passkey"]] = ["totp"] if totp else []
    if passkeys:
        factors.append("passkey")
    return {
        "staffId": member.id,
        "email": member.email,
        "role": member.role,
        "status": "active" if member.status == "active" else "deactivated",
        "createdAt": format_ts(member.created_at),
        "lastSignInAt": format_ts(credential.last_sign_in_at if credential else None),
        "mfa": bool(factors),
        "factors": factors,
        "passwordSet": credential is not None and credential.password_hash is not None,
    }
