"""The sealed form of a document: it opens to the original bytes, and any change to the
object (a flipped bit, a cut, segments reordered, an object copied under another document,
another key) makes it fail to open."""

from __future__ import annotations

import io
import os
from collections.abc import AsyncIterator

import pytest

from gatehouse.documents.sealing import (
    HEADER,
    SEGMENT,
    TAG,
    SealBroken,
    Sealer,
    new_data_key,
    open_sealed,
    sealed_size,
)

DOC = "doc_test0001"


def seal(key: bytes, plaintext: bytes, document_id: str = DOC) -> tuple[bytes, Sealer]:
    sealer = Sealer(key, document_id, io.BytesIO(plaintext))
    return b"".join(sealer), sealer


async def pieces(data: bytes, size: int) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


async def opened(key: bytes, data: bytes, document_id: str = DOC, piece: int = 7000) -> bytes:
    return b"".join([chunk async for chunk in open_sealed(key, document_id, pieces(data, piece))])


@pytest.mark.parametrize(
    "size", [1, 100, SEGMENT - 1, SEGMENT, SEGMENT + 1, 3 * SEGMENT, 3 * SEGMENT + 5]
)
async def test_round_trip_of_every_size(size: int) -> None:
    key = new_data_key()
    plaintext = os.urandom(size)
    sealed, sealer = seal(key, plaintext)
    assert len(sealed) == sealed_size(size)
    assert sealer.size == size
    if size >= 16:  # a byte or two may turn up in any random string
        assert plaintext not in sealed
    for piece in (1, 999, SEGMENT + TAG, 10 * SEGMENT):
        assert await opened(key, sealed, piece=piece) == plaintext


async def test_every_document_is_sealed_differently() -> None:
    plaintext = b"%PDF-1.7 the same bytes"
    first, _ = seal(new_data_key(), plaintext)
    second, _ = seal(new_data_key(), plaintext)
    assert first != second


def test_the_digest_is_of_the_original_bytes() -> None:
    import hashlib

    plaintext = os.urandom(2 * SEGMENT + 3)
    _, sealer = seal(new_data_key(), plaintext)
    assert sealer.sha256 == hashlib.sha256(plaintext).hexdigest()


async def test_a_flipped_bit_anywhere_fails() -> None:
    key = new_data_key()
    sealed, _ = seal(key, os.urandom(2 * SEGMENT + 10))
    for position in (0, len(HEADER) + 5, len(HEADER) + SEGMENT + TAG + 1, len(sealed) - 1):
        altered = bytearray(sealed)
        altered[position] ^= 0x01
        with pytest.raises(SealBroken):
            await opened(key, bytes(altered))


async def test_a_cut_at_a_segment_boundary_fails() -> None:
    key = new_data_key()
    sealed, _ = seal(key, os.urandom(3 * SEGMENT))
    cut = sealed[: len(HEADER) + 2 * (SEGMENT + TAG)]
    with pytest.raises(SealBroken):
        await opened(key, cut)
    with pytest.raises(SealBroken):
        await opened(key, sealed[:3])


async def test_reordered_segments_fail() -> None:
    key = new_data_key()
    sealed, _ = seal(key, os.urandom(3 * SEGMENT))
    body = sealed[len(HEADER) :]
    size = SEGMENT + TAG
    segments = [body[i : i + size] for i in range(0, len(body), size)]
    swapped = HEADER + segments[1] + segments[0] + segments[2]
    with pytest.raises(SealBroken):
        await opened(key, swapped)


async def test_an_object_copied_under_another_document_fails() -> None:
    key = new_data_key()
    sealed, _ = seal(key, b"%PDF-1.7 evidence")
    with pytest.raises(SealBroken):
        await opened(key, sealed, document_id="doc_other")


async def test_another_key_fails() -> None:
    sealed, _ = seal(new_data_key(), b"%PDF-1.7 evidence")
    with pytest.raises(SealBroken):
        await opened(new_data_key(), sealed)
