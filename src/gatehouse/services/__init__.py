"""Use cases: one function per operation, called by thin endpoints, each in a unit of work."""
