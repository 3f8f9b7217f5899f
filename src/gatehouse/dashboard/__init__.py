"""The dashboard area."""
