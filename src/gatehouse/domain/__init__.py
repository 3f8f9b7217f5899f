"""Domain rules: plain dataclasses and functions, no HTTP and no SQL."""
