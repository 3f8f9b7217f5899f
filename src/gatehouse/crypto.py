"""The key ring: keyed hashes of credentials, encryption at rest, short MACs.

`GATEHOUSE_SECRET_KEY` is the current key; `GATEHOUSE_PREVIOUS_SECRET_KEYS` (comma-separated)
are older keys that still decrypt and verify (docs/operations.md "Keys and rotation"). Each
key has a short public id, derived from it, carried by everything made under it:

- Credentials the service only has to recognise (API keys, staff tokens, sign-in and session
  tokens, verification client secrets) are stored as keyed digests `k<kid>$<56 hex>`: they are
  long random strings, so a fast keyed hash is enough, and the key keeps a stolen table from
  being checked offline. A digest made under any key of the ring verifies; lookups by digest
  use `hash_candidates`. Digests written before key ids existed (64 hex, current key) still
  verify. A digest cannot be made again without the credential, so rotation cannot move it:
  API keys and staff tokens are stored again under the current key when they next verify
  (`needs_rehash`), and the rest verify only while their key is in the ring.
- Secrets the service must give back (webhook signing secrets, callback passphrases, stored
  idempotent responses, TOTP secrets, document data keys) are sealed with AES-GCM as
  `g1.<kid>.<base64url(nonce | ciphertext)>`; `needs_rekey` tells `gatehouse keys rotate`
  which values to seal again under the current key.
- Cursors and other opaque values carry a short MAC that verifies under any key of the ring.

Nothing encrypted or keyed becomes unreadable when a key is added: only removing a key from
the ring does that, after `gatehouse keys rotate` has moved everything to the current key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

SEALED_PREFIX = "g1."
_DIGEST_HEX = 56  # 224 bits of HMAC-SHA256; with the key id the digest fits 64 characters


class UndecryptableError(ValueError):
    """A sealed value that no key of the ring opens (a key was removed, or the value is bad)."""


@dataclass(frozen=True, slots=True)
class _Key:
    kid: str
    hash_key: bytes
    aead: AESGCM
    sign_key: bytes
    record_key: bytes


def _derive(secret_key: str) -> _Key:
    root = secret_key.encode()

    def sub(label: bytes) -> bytes:
        return hmac.new(root, label, hashlib.sha256).digest()

    kid = sub(b"gatehouse/key-id").hex()[:6]
    return _Key(
        kid,
        sub(b"gatehouse/hash"),
        AESGCM(sub(b"gatehouse/encrypt")),
        sub(b"gatehouse/sign"),
        sub(b"gatehouse/records"),
    )


class Crypto:
    """The key ring of one process: the current key first, then the previous ones."""

    def __init__(self, secret_key: str, previous_keys: Sequence[str] = ()) -> None:
        ring = [_derive(secret_key)]
        for key in previous_keys:
            derived = _derive(key)
            if all(derived.kid != known.kid for known in ring):
                ring.append(derived)
        self._ring = ring
        self._by_kid = {key.kid: key for key in ring}

    @property
    def current_kid(self) -> str:
        return self._ring[0].kid

    @property
    def key_ids(self) -> tuple[str, ...]:
        return tuple(key.kid for key in self._ring)

    # Keyed digests of credentials.

    @staticmethod
    def _digest(key: _Key, secret: str) -> str:
        mac = hmac.new(key.hash_key, secret.encode(), hashlib.sha256).hexdigest()
        return f"k{key.kid}${mac[:_DIGEST_HEX]}"

    @staticmethod
    def _legacy_digest(key: _Key, secret: str) -> str:
        return hmac.new(key.hash_key, secret.encode(), hashlib.sha256).hexdigest()

    def hash_secret(self, secret: str) -> str:
        """The digest to store for a credential, under the current key."""
        return self._digest(self._ring[0], secret)

    def hash_candidates(self, secret: str) -> list[str]:
        """Every digest this credential may be stored under (for lookups by digest)."""
        digests = [self._digest(key, secret) for key in self._ring]
        digests += [self._legacy_digest(key, secret) for key in self._ring]
        return digests

    def verify_secret(self, secret: str, stored_hash: str) -> bool:
        """Whether `secret` is the credential behind `stored_hash`, in constant time."""
        kid, sep, _ = stored_hash.partition("$")
        if sep and kid.startswith("k"):
            key = self._by_kid.get(kid[1:])
            expected = self._digest(key, secret) if key else self._digest(self._ring[0], "")
            return hmac.compare_digest(expected, stored_hash) and key is not None
        matches = [
            hmac.compare_digest(self._legacy_digest(key, secret), stored_hash) for key in self._ring
        ]
        return any(matches)

    def needs_rehash(self, stored_hash: str) -> bool:
        """Whether a digest is not under the current key (an older key's, or one made before
        key ids existed): the credential behind it is stored again under the current key the
        next time it verifies (docs/operations.md, "Keys and rotation")."""
        return not stored_hash.startswith(f"k{self.current_kid}$")

    # Sealing secrets at rest.

    def encrypt(self, plaintext: bytes) -> str:
        key = self._ring[0]
        nonce = os.urandom(12)
        sealed = key.aead.encrypt(nonce, plaintext, None)
        return f"{SEALED_PREFIX}{key.kid}.{base64.urlsafe_b64encode(nonce + sealed).decode()}"

    def decrypt(self, token: str) -> bytes:
        if token.startswith(SEALED_PREFIX):
            kid, _, body = token[len(SEALED_PREFIX) :].partition(".")
            key = self._by_kid.get(kid)
            candidates = [key] if key is not None else []
        else:
            body, candidates = token, list(self._ring)  # sealed before key ids existed
        try:
            raw = base64.urlsafe_b64decode(body.encode())
        except (binascii.Error, ValueError):
            raise UndecryptableError("not a sealed value") from None
        if len(raw) < 12 + 16:
            raise UndecryptableError("not a sealed value")
        for candidate in candidates:
            try:
                return candidate.aead.decrypt(raw[:12], raw[12:], None)
            except InvalidTag:
                continue
        raise UndecryptableError("no key of the ring opens this value")

    def encrypt_text(self, plaintext: str) -> str:
        return self.encrypt(plaintext.encode())

    def decrypt_text(self, token: str) -> str:
        return self.decrypt(token).decode()

    def needs_rekey(self, token: str) -> bool:
        """Whether a sealed value is not yet under the current key."""
        return not token.startswith(f"{SEALED_PREFIX}{self.current_kid}.")

    def rekey(self, token: str) -> str:
        """The same secret, sealed again under the current key."""
        return self.encrypt(self.decrypt(token))

    # Short MACs for opaque values.

    def sign(self, payload: bytes) -> str:
        """A short MAC for integrity-protected opaque values (cursors), current key."""
        return self._mac(self._ring[0], payload)

    def verify_signature(self, payload: bytes, signature: str) -> bool:
        """Whether `signature` is a MAC of `payload` under a key of the ring, in constant time.

        `signature` comes from outside (a cursor, a ticket): anything but ASCII is simply
        not a signature (`hmac.compare_digest` raises on non-ASCII text).
        """
        sent = signature.encode("ascii") if signature.isascii() else b""
        matches = [
            hmac.compare_digest(self._mac(key, payload).encode("ascii"), sent) for key in self._ring
        ]
        return any(matches) and bool(sent)

    # Signed records (the audit chain's head, docs/audit-and-evidence.md): a full HMAC-SHA256
    # under a key of their own, carrying the key id so any key of the ring verifies it.

    def sign_record(self, payload: bytes) -> str:
        """`<kid>.<64 hex>`: a MAC of `payload` under the current key's record key."""
        key = self._ring[0]
        return f"{key.kid}.{hmac.new(key.record_key, payload, hashlib.sha256).hexdigest()}"

    def verify_record(self, payload: bytes, signature: str) -> bool:
        """Whether `signature` is `sign_record(payload)` under a key of the ring (constant
        time); anything else, a key id outside the ring included, is not."""
        kid, _, mac = signature.partition(".")
        key = self._by_kid.get(kid)
        expected = hmac.new((key or self._ring[0]).record_key, payload, hashlib.sha256)
        sent = mac.encode("ascii") if mac.isascii() else b""
        return hmac.compare_digest(expected.hexdigest().encode("ascii"), sent) and key is not None

    @staticmethod
    def _mac(key: _Key, payload: bytes) -> str:
        digest = hmac.new(key.sign_key, payload, hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")
