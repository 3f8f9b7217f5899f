"""Scanning with a real clamd (Debian's clamav-daemon) over a local signature database that
holds the EICAR test signature: over TCP and over the unix socket, a detection is refused
with field `file`, a clean file passes, and a scanner that cannot be reached refuses
everything (503 `unavailable`)."""

from __future__ import annotations

import io

import pytest

from gatehouse.documents.scan import ClamdAddress, parse_address, scan
from gatehouse.errors import GatehouseError
from tests.support.document_services import EICAR, Clamd, free_port

INFECTED_PDF = b"%PDF-1.4\n" + EICAR + b"\n%%EOF\n"
CLEAN_PDF = b"%PDF-1.4\n" + b"just a statement\n" * 1000 + b"%%EOF\n"


@pytest.mark.parametrize("over", ["tcp", "unix"])
async def test_detection_and_clean_files(clamd: Clamd, over: str) -> None:
    address = parse_address(clamd.tcp_address if over == "tcp" else clamd.socket_path)
    await scan(address, io.BytesIO(CLEAN_PDF))
    with pytest.raises(GatehouseError) as refused:
        await scan(address, io.BytesIO(INFECTED_PDF))
    assert refused.value.status_code == 400
    assert refused.value.code == "invalid-argument"
    assert refused.value.field == "file"


async def test_the_stream_is_scanned_from_its_start(clamd: Clamd) -> None:
    source = io.BytesIO(INFECTED_PDF)
    source.seek(len(INFECTED_PDF))  # already read by the sniffer, say
    with pytest.raises(GatehouseError):
        await scan(parse_address(clamd.tcp_address), source)


async def test_a_large_file_is_streamed(clamd: Clamd) -> None:
    large = b"%PDF-1.4\n" + b"\x00" * (6 * 1024 * 1024) + EICAR
    with pytest.raises(GatehouseError) as refused:
        await scan(parse_address(clamd.socket_path), io.BytesIO(large))
    assert refused.value.field == "file"


@pytest.mark.parametrize(
    "address", [f"127.0.0.1:{free_port()}", "/nonexistent/clamd.sock"], ids=["tcp", "unix"]
)
async def test_an_unreachable_scanner_refuses(address: str) -> None:
    with pytest.raises(GatehouseError) as refused:
        await scan(parse_address(address), io.BytesIO(CLEAN_PDF))
    assert refused.value.status_code == 503
    assert refused.value.code == "unavailable"
    assert refused.value.headers["Retry-After"]


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("/run/clamav/clamd.ctl", ClamdAddress(socket_path="/run/clamav/clamd.ctl")),
        ("unix:///run/clamd.sock", ClamdAddress(socket_path="/run/clamd.sock")),
        ("clamav:3310", ClamdAddress(host="clamav", port=3310)),
        ("127.0.0.1:4000", ClamdAddress(host="127.0.0.1", port=4000)),
        ("[::1]:3310", ClamdAddress(host="::1", port=3310)),
        ("clamav", ClamdAddress(host="clamav", port=3310)),
    ],
)
def test_addresses(text: str, parsed: ClamdAddress) -> None:
    assert parse_address(text) == parsed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (":3310", "needs a host"),
        ("clamav:port", "port must be a number"),
        ("clamav:0", "port must be a number"),
        ("[::1", "IPv6 clamd address"),
        ("[::1]x", "IPv6 clamd address"),
    ],
)
def test_bad_addresses(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_address(text)
