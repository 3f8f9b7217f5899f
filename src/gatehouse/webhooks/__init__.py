"""The webhooks area."""
