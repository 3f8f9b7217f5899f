"""The sealed form of a document at rest (docs/documents.md, "Custody").

Every document gets a fresh 256-bit AES-GCM data key. Its bytes are sealed in segments of
64 KiB so that neither sealing nor opening holds a whole document in memory:

    object  = header | segment_0 | … | segment_n
    header  = b"GHD1" | segment size (4 bytes, big-endian)
    segment = AES-GCM(data key, nonce_i, plaintext_i, aad) (ciphertext and 16-byte tag)
    nonce_i = i (11 bytes, big-endian) | 0x01 for the last segment, 0x00 before it
    aad     = header | document id

The key is used for one document only, so counter nonces never repeat; the last-segment flag
makes a truncated object fail to open, the counter a reordered one, and the document id an
object copied under another document. Opening checks every segment before giving its bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from typing import BinaryIO

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC = b"GHD1"
SEGMENT = 64 * 1024
TAG = 16
HEADER = MAGIC + SEGMENT.to_bytes(4, "big")
KEY_BYTES = 32


class SealBroken(Exception):
    """A stored object that does not open under its data key: altered, truncated or foreign."""


def new_data_key() -> bytes:
    return AESGCM.generate_key(bit_length=KEY_BYTES * 8)


def _nonce(index: int, last: bool) -> bytes:
    return index.to_bytes(11, "big") + (b"\x01" if last else b"\x00")


def _aad(document_id: str) -> bytes:
    return HEADER + document_id.encode()


def sealed_size(plain_size: int) -> int:
    """How many bytes the sealed object of `plain_size` bytes takes."""
    segments = max(1, -(-plain_size // SEGMENT))
    return len(HEADER) + plain_size + TAG * segments


class Sealer:
    """Seals a readable binary file into the object's bytes, hashing the plaintext on the way.

    Iterate it once; `sha256` and `size` are complete when the iteration ends.
    """

    def __init__(self, key: bytes, document_id: str, source: BinaryIO) -> None:
        self._aead = AESGCM(key)
        self._aad = _aad(document_id)
        self._source = source
        self._digest = hashlib.sha256()
        self.size = 0

    @property
    def sha256(self) -> str:
        return self._digest.hexdigest()

    def _read(self) -> bytes:
        block = self._source.read(SEGMENT)
        self._digest.update(block)
        self.size += len(block)
        return block

    def __iter__(self) -> Iterator[bytes]:
        yield HEADER
        index = 0
        current = self._read()
        while True:
            following = self._read()  # one segment ahead: the last one is flagged
            last = not following
            yield self._aead.encrypt(_nonce(index, last), current, self._aad)
            if last:
                return
            current = following
            index += 1


async def open_sealed(
    key: bytes, document_id: str, chunks: AsyncIterable[bytes]
) -> AsyncIterator[bytes]:
    """The original bytes of a sealed object read as `chunks` of any size, segment by segment.

    Raises SealBroken at the first segment that does not authenticate (and for a missing or
    foreign header, or a truncated object).
    """
    aead = AESGCM(key)
    aad = _aad(document_id)
    full = SEGMENT + TAG
    buffer = bytearray()
    header_seen = False
    index = 0
    async for chunk in chunks:
        buffer += chunk
        if not header_seen:
            if len(buffer) < len(HEADER):
                continue
            if bytes(buffer[: len(HEADER)]) != HEADER:
                raise SealBroken("unknown header")
            del buffer[: len(HEADER)]
            header_seen = True
        # Strictly more than one segment buffered: the one in front is not the last.
        while len(buffer) > full:
            yield _open(aead, index, False, bytes(buffer[:full]), aad)
            del buffer[:full]
            index += 1
    if not header_seen:
        raise SealBroken("truncated header")
    yield _open(aead, index, True, bytes(buffer), aad)


def _open(aead: AESGCM, index: int, last: bool, segment: bytes, aad: bytes) -> bytes:
    try:
        return aead.decrypt(_nonce(index, last), segment, aad)
    except InvalidTag:
        raise SealBroken(f"segment {index} does not authenticate") from None
