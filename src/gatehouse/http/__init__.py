"""Cross-cutting HTTP: errors, request ids, routing rules, auth, limits, idempotency."""
