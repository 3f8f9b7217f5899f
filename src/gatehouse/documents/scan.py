"""Optional virus scanning of uploads by ClamAV's clamd (docs/documents.md, "Scanning").

With GATEHOUSE_CLAMD_ADDRESS set (`host:port`, `[v6]:port`, or the absolute path of clamd's
unix socket), every upload is streamed to clamd with the INSTREAM command before anything is
stored. A detection refuses the upload (400 `invalid-argument`, field `file`); a scanner that
cannot be reached, or cannot say, refuses it too (503 `unavailable`): nothing unscanned is
ever kept. The client is `clamav-client`; its blocking socket runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import BinaryIO

from clamav_client.clamd import (
    BufferTooLongError,
    ClamdError,
    ClamdNetworkSocket,
    ClamdUnixSocket,
)

from gatehouse.errors import ErrorKind, GatehouseError, invalid_argument

log = logging.getLogger("gatehouse.documents")

UNAVAILABLE = ErrorKind(503, "unavailable")
# Seconds clamd may take to connect, read the stream and answer.
SCAN_TIMEOUT = 60
RETRY_AFTER_SECONDS = 30
DEFAULT_PORT = 3310


@dataclass(frozen=True, slots=True)
class ClamdAddress:
    """Where clamd listens: a unix socket path, or a TCP host and port."""

    socket_path: str | None = None
    host: str | None = None
    port: int = DEFAULT_PORT

    def describe(self) -> str:
        return self.socket_path or f"{self.host}:{self.port}"


def parse_address(value: str) -> ClamdAddress:
    """`/run/clamav/clamd.ctl`, `clamav:3310`, `[::1]:3310` (ValueError when none of them)."""
    text = value.strip()
    if text.startswith("unix://"):
        text = text[len("unix://") :]
    if text.startswith("/"):
        return ClamdAddress(socket_path=text)
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
        if not sep or (rest and not rest.startswith(":")):
            raise ValueError("an IPv6 clamd address is written [address]:port")
    else:
        host, _, port_text = text.rpartition(":") if ":" in text else (text, "", "")
    if not host:
        raise ValueError("the clamd address needs a host (host:port) or a socket path")
    if not port_text:
        return ClamdAddress(host=host)
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError("the clamd port must be a number from 1 to 65535")
    return ClamdAddress(host=host, port=int(port_text))


def scanner_unavailable() -> GatehouseError:
    return GatehouseError(
        UNAVAILABLE,
        "The virus scanner cannot be reached; nothing was stored. Try again later.",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def detected() -> GatehouseError:
    return invalid_argument("The file was refused by the virus scanner.", "file", "malware found")


def _client(address: ClamdAddress) -> ClamdNetworkSocket:
    if address.socket_path is not None:
        return ClamdUnixSocket(address.socket_path, timeout=SCAN_TIMEOUT)
    if address.host is None:
        raise ValueError("a clamd address has a host or a socket path")
    return ClamdNetworkSocket(address.host, address.port, timeout=SCAN_TIMEOUT)


def _instream(address: ClamdAddress, source: BinaryIO) -> tuple[str | None, str | None]:
    source.seek(0)
    result = _client(address).instream(source)
    status, signature = result.get("stream", (None, None))
    return status, signature


async def scan(address: ClamdAddress, source: BinaryIO) -> None:
    """Stream `source` (from its start) to clamd; raise when it is refused or unscanned."""
    try:
        status, signature = await asyncio.to_thread(_instream, address, source)
    except BufferTooLongError:
        log.error(
            "clamd refused a stream as too long: raise its StreamMaxLength above "
            "GATEHOUSE_UPLOAD_MAX_BYTES",
            extra={"clamd": address.describe()},
        )
        raise scanner_unavailable() from None
    except (ClamdError, OSError) as exc:
        log.error(
            "clamd cannot be reached",
            extra={"clamd": address.describe(), "error": type(exc).__name__},
        )
        raise scanner_unavailable() from None
    if status == "FOUND":
        log.warning("upload refused by clamd", extra={"signature": signature})
        raise detected()
    if status != "OK":
        log.error("clamd could not scan an upload", extra={"clamd": address.describe()})
        raise scanner_unavailable()
