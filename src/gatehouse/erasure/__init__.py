"""erasure."""
