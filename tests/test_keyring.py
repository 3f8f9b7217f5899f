"""The key ring (docs/operations.md "Keys and rotation"): current + previous keys, key ids on
everything sealed or keyed, nothing unreadable when a key is added."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from gatehouse.crypto import Crypto, UndecryptableError

A = "key-a-0123456789abcdef0123456789abcdef0123"
B = "key-b-0123456789abcdef0123456789abcdef0123"
C = "key-c-0123456789abcdef0123456789abcdef0123"


def test_key_ids_are_short_stable_and_distinct() -> None:
    assert Crypto(A).current_kid == Crypto(A).current_kid
    assert Crypto(A).current_kid != Crypto(B).current_kid
    assert len(Crypto(A).current_kid) == 6
    assert Crypto(B, [A, A, B]).key_ids == (Crypto(B).current_kid, Crypto(A).current_kid)


def test_sealed_values_carry_the_key_id_and_open_after_two_rotations() -> None:
    sealed_a = Crypto(A).encrypt_text("whsec_secret")
    assert sealed_a.startswith(f"g1.{Crypto(A).current_kid}.")
    ring_b = Crypto(B, [A])
    assert ring_b.decrypt_text(sealed_a) == "whsec_secret"
    assert ring_b.needs_rekey(sealed_a)
    sealed_b = ring_b.rekey(sealed_a)
    assert not ring_b.needs_rekey(sealed_b)
    ring_c = Crypto(C, [B])
    assert ring_c.decrypt_text(sealed_b) == "whsec_secret"
    with pytest.raises(UndecryptableError):
        ring_c.decrypt_text(sealed_a)  # A left the ring before this value was sealed again


def test_values_sealed_before_key_ids_still_open() -> None:
    legacy = Crypto(A)._ring[0]
    import base64
    import os

    nonce = os.urandom(12)
    token = base64.urlsafe_b64encode(nonce + legacy.aead.encrypt(nonce, b"old", None)).decode()
    assert Crypto(B, [A]).decrypt(token) == b"old"
    assert Crypto(B, [A]).needs_rekey(token)


def test_tampered_or_garbage_sealed_values_are_refused_not_crashed() -> None:
    crypto = Crypto(A)
    sealed = crypto.encrypt(b"x")
    for bad in (sealed[:-2] + "AA", "g1.zzzzzz." + sealed.split(".", 2)[2], "g1.", "%%%", ""):
        with pytest.raises(UndecryptableError):
            crypto.decrypt(bad)


def test_credential_digests_verify_under_every_key_of_the_ring() -> None:
    stored_a = Crypto(A).hash_secret("service_secret")
    assert stored_a.startswith(f"k{Crypto(A).current_kid}$")
    assert len(stored_a) == 64
    ring = Crypto(C, [B, A])
    assert ring.verify_secret("service_secret", stored_a)
    assert not ring.verify_secret("other", stored_a)
    assert stored_a in ring.hash_candidates("service_secret")
    assert not Crypto(C, [B]).verify_secret("service_secret", stored_a)


def test_digests_made_before_key_ids_still_verify_and_are_found() -> None:
    legacy = hmac.new(Crypto(A)._ring[0].hash_key, b"token", hashlib.sha256).hexdigest()
    assert Crypto(A).verify_secret("token", legacy)
    assert Crypto(B, [A]).verify_secret("token", legacy)
    assert legacy in Crypto(B, [A]).hash_candidates("token")


def test_signatures_verify_under_previous_keys_only_while_in_the_ring() -> None:
    signature = Crypto(A).sign(b"cursor")
    assert Crypto(B, [A]).verify_signature(b"cursor", signature)
    assert not Crypto(B).verify_signature(b"cursor", signature)
    assert not Crypto(B, [A]).verify_signature(b"cursor2", signature)
