"""info_requests."""
