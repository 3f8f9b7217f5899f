"""`gatehouse demo`: a tenant, one usable intake, an all-scopes key and a super_admin."""

from __future__ import annotations

from gatehouse.http.auth import ALL_SCOPES
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.staff.accounts import create_api_key, create_staff_member, create_tenant
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
        admin = await create_staff_member(
            runtime, f"admin+{label_id[-6:]}@demo.test", "super_admin"
        )
    finally:
        await runtime.close()
    return {
        "baseUrl": settings.base_url,
        "tenant": tenant,
        "labelId": label_id,
        "apiKey": key["apiKey"],
        "staff": admin,
        "dashboard": settings.base_url + "/dashboard",
        "docs": settings.base_url + "/docs",
    }
