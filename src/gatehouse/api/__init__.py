"""The api area."""
