"""All tables, one module per area; importing this package registers them all."""

from gatehouse.storage.tables import applications, core, dashboard, verification, webhooks

__all__ = ["applications", "core", "dashboard", "verification", "webhooks"]
