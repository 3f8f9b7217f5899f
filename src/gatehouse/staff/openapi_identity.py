"""What /openapi.json says about the `/staff/v1` operations on staff members and personal
tokens (docs/api-reference.md)."""

from __future__ import annotations

from gatehouse.accounts import (
    CreatedPersonalToken,
    CreatedStaffMember,
    Invite,
    PersonalToken,
    PersonalTokenList,
    StaffList,
    StaffMemberView,
)
from gatehouse.domain.principals import Role
from gatehouse.web.openapi import (
    Op,
    OperationTable,
)

ADMIN = Role.ADMIN.value

STAFF_EXAMPLE: StaffMemberView = {
    "staffId": "stf_1a2b3c4d5e6f",
    "email": "analyst@operator.example",
    "role": "analyst",
    "status": "active",
    "createdAt": "2026-11-01T08:00:00.000Z",
    "lastSignInAt": None,
    "mfa": True,
    "factors": ["totp"],
    "passwordSet": True,
}
INVITE_EXAMPLE: Invite = {
    "inviteUrl": "https://onboarding.example.com/dashboard/invite/Hq2…",
    "inviteExpiresAt": "2026-11-25T10:00:00.000Z",
}
TOKEN_EXAMPLE: PersonalToken = {
    "tokenId": "stk_9f8e7d6c5b4a",
    "name": "reporting script",
    "status": "active",
    "createdAt": "2026-11-01T08:00:00.000Z",
    "expiresAt": "2027-01-30T08:00:00.000Z",
    "revokedAt": None,
}
ROLE = {"type": "string", "enum": list(Role)}
# Personal tokens need no role: any staff member manages their own (the security names none).
OWN_TOKENS = "Any staff member, for their own tokens only (docs/reference/staff-api.md §9.6)."

OPERATIONS: OperationTable = {
    ("POST", "/staff/v1/staff"): Op(
        "createStaffMember",
        "Create a staff member (admin and super_admin roles: super_admin only)",
        {201: CreatedStaffMember},
        access=ADMIN,
        errors=(409,),
        body_fields={"role": ROLE},
        example={"email": "analyst@operator.example", "role": "analyst"},
    ),
    ("GET", "/staff/v1/staff"): Op(
        "listStaffMembers",
        "List staff members",
        {200: StaffList},
        access=ADMIN,
        answer_example={"data": [STAFF_EXAMPLE]},
    ),
    ("PATCH", "/staff/v1/staff/{staff_id}"): Op(
        "changeStaffRole",
        "Change a staff member's role",
        {200: StaffMemberView},
        access=ADMIN,
        body_fields={"role": ROLE},
        example={"role": "mlro"},
        answer_example={**STAFF_EXAMPLE, "role": "mlro"},
    ),
    ("POST", "/staff/v1/staff/{staff_id}/deactivate"): Op(
        "deactivateStaffMember",
        "Deactivate a staff member (sessions end, tokens are revoked)",
        {200: StaffMemberView},
        access=ADMIN,
        answer_example={**STAFF_EXAMPLE, "status": "deactivated"},
    ),
    ("POST", "/staff/v1/staff/{staff_id}/reactivate"): Op(
        "reactivateStaffMember",
        "Reactivate a staff member",
        {200: StaffMemberView},
        access=ADMIN,
        answer_example=STAFF_EXAMPLE,
    ),
    ("POST", "/staff/v1/staff/{staff_id}/reset"): Op(
        "resetStaffMember",
        "Clear a staff member's password and factors and issue a new invite",
        {200: Invite},
        access=ADMIN,
        answer_example=INVITE_EXAMPLE,
    ),
    ("GET", "/staff/v1/tokens"): Op(
        "listPersonalTokens",
        "List your own personal tokens",
        {200: PersonalTokenList},
        description=OWN_TOKENS,
        answer_example={"data": [TOKEN_EXAMPLE]},
    ),
    ("POST", "/staff/v1/tokens"): Op(
        "createPersonalToken",
        "Create a personal token (shown once)",
        {201: CreatedPersonalToken},
        description=OWN_TOKENS,
        example={"name": "reporting script", "expiresInDays": 30},
    ),
    ("POST", "/staff/v1/tokens/{token_id}/revoke"): Op(
        "revokePersonalToken",
        "Revoke one of your personal tokens",
        {200: PersonalToken},
        description=OWN_TOKENS,
        answer_example={
            **TOKEN_EXAMPLE,
            "status": "revoked",
            "revokedAt": "2026-11-22T10:00:00.000Z",
        },
    ),
}
