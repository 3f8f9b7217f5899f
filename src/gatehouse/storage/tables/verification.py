"""Verification clients, customers, documents and callbacks (spec 3; CONTRACT §3).

Owned by the verification area; its tables live in the `verification` migration branch.
"""
