"""Gatehouse: self-hostable onboarding platform."""

__version__ = "0.1.0"
