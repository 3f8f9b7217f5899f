"""The nginx server block of docs/operations.md ("Behind a reverse proxy"), as printed there
(certificate paths and ports replaced), in front of `gatehouse serve` with
GATEHOUSE_TRUSTED_PROXIES=127.0.0.1: TLS is terminated, plain HTTP is redirected, /metrics and
/readyz stay inside, and Gatehouse counts each client's own address (clients on 127.0.0.2
and 127.0.0.3 have windows of their own; a forged X-Forwarded-For escapes nothing). Skipped
where nginx is not installed."""

from __future__ import annotations

import datetime
import ipaddress
import re
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.support.live import free_port
from tests.support.patience import patient
from tests.support.processes import clean_env, started

pytestmark = pytest.mark.slow

DOCS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
HOST = "onboarding.example.com"
LIMIT = 3


def server_block() -> str:
    (block,) = re.findall(r"```nginx\n(.*?)```", DOCS.read_text(), re.S)
    return block


def certificate(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(HOST), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "fullchain.pem", folder / "privkey.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@contextmanager
def nginx(folder: Path, upstream: int, tls: int, plain: int) -> Iterator[None]:
    binary = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None
    )
    if binary is None:
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    cert, key = certificate(folder)
    block = server_block()
    for old, new in (
        ("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream};"),
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{tls} ssl http2;"),
        ("listen 80;", f"listen 127.0.0.1:{plain};"),
        ("/etc/ssl/gatehouse/fullchain.pem", str(cert)),
        ("/etc/ssl/gatehouse/privkey.pem", str(key)),
    ):
        assert old in block, old
        block = block.replace(old, new)
    for temp in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / temp).mkdir()
    config = folder / "nginx.conf"
    config.write_text(
        f"daemon off;\npid {folder}/nginx.pid;\nerror_log {folder}/error.log warn;\n"
        "events { worker_connections 64; }\n"
        "http {\n"
        f"  access_log off;\n  client_body_temp_path {folder}/body;\n"
        f"  proxy_temp_path {folder}/proxy;\n  fastcgi_temp_path {folder}/fastcgi;\n"
        f"  uwsgi_temp_path {folder}/uwsgi;\n  scgi_temp_path {folder}/scgi;\n"
        f"{block}\n}}\n"
    )
    checked = subprocess.run(
        [binary, "-t", "-p", str(folder), "-c", str(config)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(
        [binary, "-p", str(folder), "-c", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + patient(20)
        while not (folder / "nginx.pid").exists():
            assert process.poll() is None, "nginx exited before it started"
            assert time.monotonic() < deadline, "nginx did not start"
            time.sleep(0.05)
        yield
    finally:
        process.terminate()
        process.wait(timeout=10)


def client_from(address: str, cert: Path) -> httpx.Client:
    """A client whose connections leave from `address` (another loopback address)."""
    transport = httpx.HTTPTransport(local_address=address, verify=str(cert))
    return httpx.Client(transport=transport, timeout=10, follow_redirects=False)


def test_nginx_in_front_of_serve(tmp_path: Path) -> None:
    upstream, tls, plain = free_port(), free_port(), free_port()
    env = clean_env(
        database_url=f"sqlite:///{tmp_path}/gatehouse.db",
        trusted_proxies="127.0.0.1",
        public_url=f"https://{HOST}:{tls}",
        rate_limit_per_ip=str(LIMIT),
    )
    serve = ["serve", "--host", "127.0.0.1", "--port", str(upstream), "--no-worker"]
    proxy = tmp_path / "nginx"
    proxy.mkdir()
    with started(serve, env, tmp_path) as server, nginx(proxy, upstream, tls, plain):
        server.wait_healthy(f"http://127.0.0.1:{upstream}")
        cert = proxy / "fullchain.pem"
        base = f"https://127.0.0.1:{tls}"
        with client_from("127.0.0.2", cert) as one, client_from("127.0.0.3", cert) as two:
            # TLS terminated at nginx; the answer is Gatehouse's.
            answer = one.get(base + "/healthz")
            assert answer.status_code == 200
            assert answer.json()["status"] == "ok"
            assert answer.headers["strict-transport-security"] == "max-age=63072000"
            assert one.get(base + "/metrics").status_code == 404
            assert one.get(base + "/readyz").status_code == 404
            moved = one.get(f"http://127.0.0.1:{plain}/v1/intakes?x=1")
            assert moved.status_code == 301
            assert moved.headers["location"] == "https://127.0.0.1/v1/intakes?x=1"

            # Each client has its own per-address window: Gatehouse sees 127.0.0.2 and
            # 127.0.0.3, not the proxy.
            statuses = [one.get(base + "/v1/intakes").status_code for _ in range(LIMIT + 1)]
            assert statuses == [401] * LIMIT + [429]
            assert two.get(base + "/v1/intakes").status_code == 401
            # A forged X-Forwarded-For: nginx appends the real address, which is counted.
            forged = {"X-Forwarded-For": "198.51.100.7"}
            assert one.get(base + "/v1/intakes", headers=forged).status_code == 429
            statuses = [
                two.get(base + "/v1/intakes", headers=forged).status_code for _ in range(LIMIT)
            ]
            assert statuses == [401] * (LIMIT - 1) + [429]


def test_nginx_bounds_headers_and_slow_clients(tmp_path: Path) -> None:
    """The block's header bound answers 431 (one line or many past 32 KiB), and headers that
    drip are cut off at its 10 s deadline (docs/platform.md, "Slow and oversized requests")."""
    upstream, tls, plain = free_port(), free_port(), free_port()
    env = clean_env(database_url=f"sqlite:///{tmp_path}/gatehouse.db", trusted_proxies="127.0.0.1")
    serve = ["serve", "--host", "127.0.0.1", "--port", str(upstream), "--no-worker"]
    proxy = tmp_path / "nginx"
    proxy.mkdir()
    with started(serve, env, tmp_path) as server, nginx(proxy, upstream, tls, plain):
        server.wait_healthy(f"http://127.0.0.1:{upstream}")
        cert = proxy / "fullchain.pem"
        with client_from("127.0.0.2", cert) as one:
            base = f"https://127.0.0.1:{tls}"
            assert one.get(base + "/healthz", headers={"X-Pad": "a" * 6000}).status_code == 200
            assert one.get(base + "/healthz", headers={"X-Pad": "a" * 40_000}).status_code == 431
            many = {f"X-Pad-{i}": "b" * 1000 for i in range(40)}
            assert one.get(base + "/healthz", headers=many).status_code == 431
        context = ssl.create_default_context(cafile=str(cert))
        with (
            socket.create_connection(("127.0.0.1", tls), timeout=30) as raw,
            context.wrap_socket(raw, server_hostname="127.0.0.1") as sock,
        ):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            start = time.monotonic()
            sock.settimeout(0.5)
            closed = False
            while time.monotonic() - start < 25 and not closed:
                try:
                    got = sock.recv(4096)
                    closed = got == b"" or got.startswith(b"HTTP/1.1 408")
                except TimeoutError:
                    sock.sendall(b"X-A: b\r\n")
                except (ConnectionError, ssl.SSLError):
                    closed = True
            assert closed
            assert 8 <= time.monotonic() - start < 25
