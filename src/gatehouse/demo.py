"""`gatehouse demo`: a tenant, one usable intake, an all-scopes key and a super_admin.

The super_admin signs in through an invite link (a password, then an authenticator app). With
GATEHOUSE_STAFF_MFA=off (development only) the demo sets a password itself and prints it
instead, so the dashboard is one sign-in away (docs/staff-identity.md "Development").
"""

from __future__ import annotations

import secrets

from gatehouse.accounts import (
    create_api_key,
    create_staff_member,
    create_tenant,
    mfa_required,
    set_password_directly,
)
from gatehouse.audit.context import WriteContext
from gatehouse.domain.principals import ALL_SCOPES
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.storage.tables.applications import Intake

DEMO_CHECKLIST = [
    {
        "key": "certificate_of_incorporation",
        "label": "Certificate of incorporation",
        "kind": "document",
        "required": True,
    },
    {
        "key": "identity_verification",
        "label": "Identity verification of a director",
        "kind": "verification",
        "required": True,
    },
    {"key": "company_form", "label": "Company details form", "kind": "form", "required": True},
]
DEMO_FORM_FIELDS = [
    {
        "key": "registration_number",
        "label": "Company registration number",
        "type": "text",
        "required": True,
    },
    {"key": "country", "label": "Country of incorporation", "type": "text", "required": True},
    {"key": "website", "label": "Website", "type": "text", "required": False},
]


async def seed_demo(settings: Settings) -> dict[str, object]:
    runtime = Runtime.build(settings)
    try:
        tenant = await create_tenant(runtime, "Demo Tenant")
        now = runtime.now()
        label_id = new_id("lbl")
        async with runtime.db.write() as session:
            session.add(
                Intake(
                    id=label_id,
                    tenant_id=str(tenant["tenantId"]),
                    position=1,
                    name="Business onboarding",
                    order=1,
                    attached=True,
                    checklist=DEMO_CHECKLIST,
                    form_fields=DEMO_FORM_FIELDS,
                    created_at=now,
                    updated_at=now,
                )
            )
        key = await create_api_key(runtime, str(tenant["tenantId"]), "demo", list(ALL_SCOPES))
        ctx = WriteContext.system("demo", runtime.now())
        admin = await create_staff_member(
            runtime, f"admin+{label_id[-6:]}@demo.test", "super_admin", ctx
        )
        sign_in: dict[str, str]
        if mfa_required(settings):
            sign_in = {
                "how": "Open inviteUrl in a browser: set a password, then scan the QR code "
                "with an authenticator app. The link works once, for 72 hours.",
                "inviteUrl": admin["inviteUrl"],
            }
        else:
            password = "-".join(secrets.token_hex(3) for _ in range(4))
            await set_password_directly(runtime, admin["staffId"], password, ctx)
            sign_in = {
                "how": "GATEHOUSE_STAFF_MFA=off (development only): sign in at "
                "/dashboard/sign-in with this email and password; no second factor.",
                "email": admin["email"],
                "password": password,
            }
    finally:
        await runtime.close()
    return {
        "baseUrl": settings.base_url,
        "tenant": tenant,
        "labelId": label_id,
        "apiKey": key["apiKey"],
        "staff": {k: v for k, v in admin.items() if k not in ("inviteUrl", "inviteExpiresAt")},
        "dashboardSignIn": sign_in,
        "dashboard": settings.base_url + "/dashboard",
        "docs": settings.base_url + "/docs",
    }
