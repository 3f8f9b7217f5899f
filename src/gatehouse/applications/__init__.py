"""applications."""
