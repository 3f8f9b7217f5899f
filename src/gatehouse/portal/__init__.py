"""The portal area."""
