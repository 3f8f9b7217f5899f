"""intakes."""
