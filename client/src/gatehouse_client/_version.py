"""The package version, read by the build (pyproject.toml) and the User-Agent."""

__version__ = "0.2.0"
