"""Sandbox tenants: simulated applicant and staff steps (docs/sandbox.md)."""
