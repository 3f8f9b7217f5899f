"""Sniffing: the four accepted kinds are recognised from their first bytes; everything else,
including look-alikes of the same container (WAV in RIFF), is not."""

from __future__ import annotations

import pytest

from gatehouse.documents.sniff import normalized, sniff

SAMPLES = {
    "application/pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n",
    "image/png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 20,
    "image/jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 20,
    "image/webp": b"RIFF\x24\x00\x00\x00WEBPVP8 " + b"\x00" * 20,
}


@pytest.mark.parametrize("media_type", sorted(SAMPLES))
def test_accepted_kinds(media_type: str) -> None:
    assert sniff(SAMPLES[media_type]) == media_type


@pytest.mark.parametrize(
    "head",
    [
        b"",
        b"hello world",
        b"<html><script>alert(1)</script></html>",
        b"GIF89a" + b"\x00" * 20,
        b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 20,
        b"PK\x03\x04" + b"\x00" * 30,
        b"MZ\x90\x00",
        b"\x00" * 100,
    ],
)
def test_other_content_is_not_accepted(head: bytes) -> None:
    assert sniff(head) is None


def test_declared_types_are_compared_bare() -> None:
    assert normalized("Image/PNG; charset=binary") == "image/png"
    assert normalized(None) == ""
