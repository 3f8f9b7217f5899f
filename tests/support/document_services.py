"""Real servers the document tests talk to: an S3-compatible server (moto's server mode) and
ClamAV's clamd with a local signature database holding the EICAR test signature.

Both run as processes on 127.0.0.1, started by session fixtures; clamd is skipped, with the
reason, where Debian's `clamav-daemon` is not installed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.support.patience import patient
from tests.support.ports import free_port

# The EICAR anti-virus test file (harmless by design, detected by every scanner).
EICAR = rb"X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"
CLAMD = shutil.which("clamd") or ("/usr/sbin/clamd" if Path("/usr/sbin/clamd").exists() else None)
S3_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "gatehouse-test",
    "AWS_SECRET_ACCESS_KEY": "gatehouse-test-secret",
    "AWS_REGION": "us-east-1",
}


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass(frozen=True)
class S3Server:
    endpoint: str

    def environment(self) -> dict[str, str]:
        return {**S3_ENVIRONMENT, "AWS_ENDPOINT_URL": self.endpoint}

    def client(self) -> object:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=S3_ENVIRONMENT["AWS_REGION"],
            aws_access_key_id=S3_ENVIRONMENT["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=S3_ENVIRONMENT["AWS_SECRET_ACCESS_KEY"],
        )


@contextmanager
def s3_server() -> Iterator[S3Server]:
    """moto's S3-compatible server on a free loopback port, until the block ends."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + patient(15)
        while True:
            if process.poll() is not None:
                raise AssertionError(f"moto server exited with {process.returncode}")
            try:
                if httpx.get(endpoint + "/moto-api/", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("moto server did not start")
            time.sleep(0.1)
        yield S3Server(endpoint)
    finally:
        _stop(process)


@contextmanager
def s3_environment(server: S3Server) -> Iterator[None]:
    """The standard AWS variables pointing at `server`, restored afterwards."""
    saved = {key: os.environ.get(key) for key in (*server.environment(), "AWS_ENDPOINT_URL_S3")}
    os.environ.update(server.environment())
    os.environ.pop("AWS_ENDPOINT_URL_S3", None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@dataclass(frozen=True)
class Clamd:
    tcp_address: str
    socket_path: str


def _clamd_answers(path: str) -> bool:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(2)
            conn.connect(path)
            conn.sendall(b"nPING\n")
            return conn.recv(16).strip() == b"PONG"
    except OSError:
        return False


@contextmanager
def clamd_server(directory: Path) -> Iterator[Clamd]:
    """clamd over a signature database holding only the EICAR test signature."""
    assert CLAMD is not None
    database = directory / "signatures"
    database.mkdir()
    # An .ndb body signature: the EICAR string anywhere in a file of any type.
    (database / "gatehouse-test.ndb").write_text(f"Gatehouse.Test.EICAR:0:*:{EICAR.hex()}\n")
    port = free_port()
    socket_path = str(directory / "clamd.sock")
    config = directory / "clamd.conf"
    config.write_text(
        "\n".join(
            [
                f"DatabaseDirectory {database}",
                f"LocalSocket {socket_path}",
                "TCPAddr 127.0.0.1",
                f"TCPSocket {port}",
                "Foreground yes",
                f"LogFile {directory / 'clamd.log'}",
                f"PidFile {directory / 'clamd.pid'}",
                "StreamMaxLength 64M",
                "",
            ]
        )
    )
    process = subprocess.Popen(
        [CLAMD, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + patient(30)
        while not _clamd_answers(socket_path):
            if process.poll() is not None:
                log = directory / "clamd.log"
                tail = log.read_text()[-2000:] if log.exists() else ""
                raise AssertionError(f"clamd exited with {process.returncode}: {tail}")
            if time.monotonic() > deadline:
                raise AssertionError("clamd did not start")
            time.sleep(0.2)
        yield Clamd(f"127.0.0.1:{port}", socket_path)
    finally:
        _stop(process)
