"""Webhook endpoints, their signing secrets and deliveries (spec 2; CONTRACT §2).

Owned by the webhooks area; its tables live in the `webhooks` migration branch.
"""
