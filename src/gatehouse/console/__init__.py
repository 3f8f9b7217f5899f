"""The tenant console surface (docs/console.md)."""
