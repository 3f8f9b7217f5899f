"""Use cases: one function per operation, called by thin endpoints; each runs inside a unit of work."""
