"""The staff area."""
