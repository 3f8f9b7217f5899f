"""Debian's pgbouncer in front of the suite's PostgreSQL, in transaction mode, with a
configuration of its own (the packaged service is never touched).

pgbouncer refuses to run as root: as root the process is started as `postgres` (`-u`), and
its files are made readable by that user.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.engine import make_url

from tests.support.ports import free_port


def pgbouncer_path() -> str | None:
    found = shutil.which("pgbouncer")
    if found:
        return found
    return "/usr/sbin/pgbouncer" if os.access("/usr/sbin/pgbouncer", os.X_OK) else None


@contextmanager
def pgbouncer(server_url: str, *, pool_size: int = 8) -> Iterator[str]:
    """Run pgbouncer (transaction mode) for `server_url`; yield the URL to reach it with."""
    binary = pgbouncer_path()
    assert binary is not None
    server = make_url(server_url)
    port = free_port()
    # Its own folder, which the `postgres` user can reach (pytest's are private to root).
    folder = Path(tempfile.mkdtemp(prefix="gatehouse-pgbouncer-"))
    folder.chmod(0o755)
    config = folder / "pgbouncer.ini"
    config.write_text(
        "[databases]\n"
        f"* = host={server.host or '127.0.0.1'} port={server.port or 5432} "
        f"user={server.username or 'postgres'}\n"
        "[pgbouncer]\n"
        "listen_addr = 127.0.0.1\n"
        f"listen_port = {port}\n"
        "unix_socket_dir =\n"
        "auth_type = any\n"
        "pool_mode = transaction\n"
        f"default_pool_size = {pool_size}\n"
        "max_client_conn = 500\n"
        # What the asyncpg driver sends at connect that pgbouncer would otherwise refuse.
        "ignore_startup_parameters = extra_float_digits,options\n"
        # A server connection goes back to the pool clean (no prepared statement of another
        # client left on it): docs/operations.md, "Behind a connection pooler".
        "server_reset_query = DISCARD ALL\n"
        "server_reset_query_always = 1\n"
        f"logfile = {folder / 'pgbouncer.log'}\n"
        f"pidfile = {folder / 'pgbouncer.pid'}\n"
    )
    command = [binary, str(config)]
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
        for path in folder.iterdir():
            os.chown(path, user.pw_uid, user.pw_gid)
        command = [binary, "-u", "postgres", str(config)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(
                    f"pgbouncer stopped: {process.stdout.read() if process.stdout else ''}"
                )
            if "listening on 127.0.0.1" in _read(folder / "pgbouncer.log"):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("pgbouncer did not start: " + _read(folder / "pgbouncer.log"))
        yield server.set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
