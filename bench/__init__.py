"""Benchmarks of the tenant API (bench/RESULTS.md): `.venv/bin/python bench/run.py [--quick]`."""
