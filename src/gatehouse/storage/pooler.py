"""PostgreSQL behind a pooler in transaction mode (docs/operations.md, "Behind a connection
pooler"): GATEHOUSE_DATABASE_POOLER=transaction.

Such a pooler (pgbouncer's `pool_mode = transaction`) hands a client a server connection for
one transaction at a time, and before version 1.21 knows nothing of prepared statements. The
asyncpg driver prepares every statement, and by default keeps them by name on the connection
and prepares and runs a statement in two round trips, in autocommit possibly on two server
connections. So, behind it:

- no statement is kept prepared on a connection (both statement caches off), and the names
  of the statements that are prepared are unique (a server connection serves many clients);
- every statement runs in a transaction (reads included, which otherwise run in autocommit:
  storage/db.py), so its preparation and its execution meet on one server connection;
- the migration lock is an advisory lock of a transaction (storage/migrate.py), which the
  pooler keeps on one server connection, as it does for every transaction.

The pooler should reset a server connection when it takes it back (`server_reset_query =
DISCARD ALL` with `server_reset_query_always = 1`), which drops what prepared statements are
left. Workers' LISTEN for wake-ups cannot work through such a pooler: deliveries are then
picked up by the workers' one-second poll.
"""

from __future__ import annotations

import uuid
from typing import Any


def statement_name() -> str:
    """A prepared statement's name, unique across every client of a server connection."""
    return f"__gatehouse_{uuid.uuid4().hex}__"


def engine_connect_args() -> dict[str, Any]:
    """SQLAlchemy's asyncpg dialect: no statement cache of its own nor asyncpg's, unique names."""
    return {
        "prepared_statement_cache_size": 0,
        "prepared_statement_name_func": statement_name,
        "statement_cache_size": 0,
    }


def runner_connect_args() -> dict[str, Any]:
    """asyncpg.connect for the prepared reads (storage/prepared.py): no statement cache."""
    return {"statement_cache_size": 0}
