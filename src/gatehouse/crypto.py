"""Hashing of credentials and encryption of secrets at rest.

Credentials the service only has to recognise (API keys, staff tokens, sign-in
tokens, verification client secrets) are stored as keyed SHA-256 digests: they
are long random strings, so a fast hash is enough, and the key (derived from
SECRET_KEY) keeps a stolen table from being checked offline. Secrets the
service must send back (webhook signing secrets, callback passphrases, stored
idempotent responses) are encrypted with AES-GCM.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

from cryptography.hazmat.primitives.ciphers.aead import AESGCM


class Crypto:
    def __init__(self, secret_key: str) -> None:
        root = secret_key.encode()
        self._hash_key = hmac.new(root, b"gatehouse/hash", hashlib.sha256).digest()
        self._enc_key = hmac.new(root, b"gatehouse/encrypt", hashlib.sha256).digest()
        self._sign_key = hmac.new(root, b"gatehouse/sign", hashlib.sha256).digest()
        self._aead = AESGCM(self._enc_key)

    def hash_secret(self, secret: str) -> str:
        return hmac.new(self._hash_key, secret.encode(), hashlib.sha256).hexdigest()

    def verify_secret(self, secret: str, stored_hash: str) -> bool:
        return hmac.compare_digest(self.hash_secret(secret), stored_hash)

    def encrypt(self, plaintext: bytes) -> str:
        nonce = os.urandom(12)
        sealed = self._aead.encrypt(nonce, plaintext, None)
        return base64.urlsafe_b64encode(nonce + sealed).decode()

    def decrypt(self, token: str) -> bytes:
        raw = base64.urlsafe_b64decode(token.encode())
        return self._aead.decrypt(raw[:12], raw[12:], None)

    def encrypt_text(self, plaintext: str) -> str:
        return self.encrypt(plaintext.encode())

    def decrypt_text(self, token: str) -> str:
        return self.decrypt(token).decode()

    def sign(self, payload: bytes) -> str:
        """A short MAC for integrity-protected opaque values (cursors)."""
        digest = hmac.new(self._sign_key, payload, hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def verify_signature(self, payload: bytes, signature: str) -> bool:
        return hmac.compare_digest(self.sign(payload), signature)
