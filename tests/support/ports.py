"""Free loopback ports for the servers the tests start.

Two rules keep two servers from meeting on one port:

- a port is handed out once per test process, so three calls in a row give three ports
  (the kernel may otherwise give back a port just closed);
- ports come from below the kernel's ephemeral range, where outgoing connections take their
  local ports, so a client connection cannot take a port between the moment it is chosen and
  the moment its server binds it.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

_HANDED_OUT: set[int] = set()
_LOWEST = 20000


def _ephemeral_start() -> int:
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768
    return low if low > _LOWEST + 1000 else 65536


def _bindable(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A loopback port nobody listens on and no earlier call in this process returned."""
    top = _ephemeral_start()
    for _ in range(1000):
        if top < 65536:
            port = random.randrange(_LOWEST, top)
        else:  # no room below the ephemeral range: let the kernel choose
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = int(probe.getsockname()[1])
        if port not in _HANDED_OUT and _bindable(port):
            _HANDED_OUT.add(port)
            return port
    raise RuntimeError("no free loopback port found")
