"""Benchmarks of the tenant API (issue 8): `.venv/bin/python bench/run.py [--quick]`."""
