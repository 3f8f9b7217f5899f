"""Persistence: SQLAlchemy tables, engines for SQLite and PostgreSQL, migrations."""
