"""All tables, one module per area; importing this package registers them all."""

from gatehouse.storage.tables import (
    applications,
    console,
    core,
    credentials,
    dashboard,
    documents_custody,
    insights,
    records,
    screening,
    staff_identity,
    verification,
    webhooks,
    workstation,
)

__all__ = [
    "applications",
    "console",
    "core",
    "credentials",
    "dashboard",
    "documents_custody",
    "insights",
    "records",
    "screening",
    "staff_identity",
    "verification",
    "webhooks",
    "workstation",
]
