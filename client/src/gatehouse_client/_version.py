"""The package version, read by the build (pyproject.toml) and the User-Agent.

Gatehouse and this SDK are released together under one version, written once in
src/gatehouse/__init__.py: `scripts/release X.Y.Z` sets it there and copies it here.
"""

__version__ = "0.2.0"
