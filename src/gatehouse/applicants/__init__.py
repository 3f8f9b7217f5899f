"""applicants."""
