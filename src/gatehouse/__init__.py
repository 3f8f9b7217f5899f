"""Gatehouse: self-hostable onboarding platform."""

__version__ = "0.2.0"
