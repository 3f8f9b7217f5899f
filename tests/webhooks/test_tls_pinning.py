"""TLS to a pinned address keeps the hostname for SNI and certificate checks
(docs/reference/webhooks.md §4.2).

A local HTTPS receiver with a certificate from a throwaway CA; the resolver is
stubbed so `hooks.example.com` resolves to 127.0.0.1.
"""

from __future__ import annotations

import datetime
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from gatehouse.outbound import transport, url_safety
from tests.webhooks.receiver import Receiver, free_port


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _make_pki(folder: Path, hostname: str) -> tuple[Path, Path, Path]:
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(_name("Test CA"))
        .issuer_name(_name("Test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(hostname))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(hostname)]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    ca_path, cert_path, key_path = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    ca_path.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return ca_path, cert_path, key_path


@pytest.fixture
def tls_receiver(tmp_path: Path) -> Iterator[tuple[Receiver, int, Path]]:
    ca, cert, key = _make_pki(tmp_path, "hooks.example.com")
    receiver = Receiver()
    port = free_port()
    config = uvicorn.Config(
        receiver,
        host="127.0.0.1",
        port=port,
        log_config=None,
        access_log=False,
        lifespan="off",
        ssl_certfile=str(cert),
        ssl_keyfile=str(key),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline
        assert thread.is_alive()
        time.sleep(0.01)
    try:
        yield receiver, port, ca
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        transport.trust_certificates(None)


@pytest.fixture
def stub_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    async def fake_resolve(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    monkeypatch.setattr(url_safety, "resolve_host", fake_resolve)


async def test_pinned_tls_verifies_the_hostname(
    tls_receiver: tuple[Receiver, int, Path], stub_dns: None
) -> None:
    receiver, port, ca = tls_receiver
    transport.trust_certificates(ssl.create_default_context(cafile=str(ca)))
    result = await transport.post_json(
        f"https://hooks.example.com:{port}/in", b"{}", {}, allow_private=True
    )
    assert result.status == 200, result.error
    [got] = receiver.snapshot()
    assert got.headers["host"] == f"hooks.example.com:{port}"
    # The same address under another name fails the certificate check.
    other = await transport.post_json(
        f"https://other.example.com:{port}/in", b"{}", {}, allow_private=True
    )
    assert other.status is None
    assert other.error is not None
    assert len(receiver.snapshot()) == 1


async def test_an_untrusted_certificate_is_a_failure(
    tls_receiver: tuple[Receiver, int, Path], stub_dns: None
) -> None:
    receiver, port, _ca = tls_receiver
    result = await transport.post_json(
        f"https://hooks.example.com:{port}/in", b"{}", {}, allow_private=True
    )
    assert result.status is None
    assert result.error is not None
    assert receiver.snapshot() == []
