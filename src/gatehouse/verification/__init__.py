"""The verification area."""
