"""Staff identity (docs/staff-identity.md): passwords, second factors, invites, personal
tokens, lockout and the short-lived sign-in flows.

Nothing here is kept in the clear that a thief could use: passwords are argon2id hashes,
invite tokens, personal tokens, recovery codes and flow cookies are keyed digests, and TOTP
secrets and flow data are sealed with the key ring (listed in storage/sealed.py).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from gatehouse.storage.base import Base, UTCDateTime


class StaffCredential(Base):
    """One row per staff member who has signed in or been invited since staff identity."""

    __tablename__ = "staff_credentials"

    staff_id: Mapped[str] = mapped_column(ForeignKey("staff_members.id"), primary_key=True)
    password_hash: Mapped[str | None] = mapped_column(String(200))
    password_set_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    totp_secret_encrypted: Mapped[str | None] = mapped_column(Text)
    totp_enrolled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The last accepted TOTP time step: a code is accepted once (RFC 6238 §5.2).
    totp_last_step: Mapped[int | None] = mapped_column(BigInteger)
    locked_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_sign_in_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class StaffSignInFailure(Base):
    """A failed sign-in of a known account; five within 15 minutes lock it."""

    __tablename__ = "staff_sign_in_failures"
    __table_args__ = (Index("ix_staff_sign_in_failures_staff_at", "staff_id", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    staff_id: Mapped[str] = mapped_column(ForeignKey("staff_members.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime)


class StaffInvite(Base):
    """A single-use link to set a password and enrol a second factor (72 hours)."""

    __tablename__ = "staff_invites"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    staff_id: Mapped[str] = mapped_column(ForeignKey("staff_members.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class StaffRecoveryCode(Base):
    """A one-time code that stands in for the second factor; shown once, kept hashed."""

    __tablename__ = "staff_recovery_codes"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    staff_id: Mapped[str] = mapped_column(ForeignKey("staff_members.id"), index=True)
    code_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class StaffPasskey(Base):
    """A WebAuthn credential (passkey) a staff member enrolled and named."""

    __tablename__ = "staff_passkeys"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    staff_id: Mapped[str] = mapped_column(ForeignKey("staff_members.id"), index=True)
    # base64url of the credential id (at most 1023 bytes) and of the COSE public key.
    credential_id: Mapped[str] = mapped_column(String(1400), unique=True)
    public_key: Mapped[str] = mapped_column(Text)
    sign_count: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(100))
    transports: Mapped[list[str] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


# The row id of a personal token is this prefix and the id part of `staff_<id>_<secret>`.
TOKEN_ROW_PREFIX = "stk_"  # noqa: S105 - an id prefix, not a secret


class StaffToken(Base):
    """A personal API token `staff_<id>_<secret>` for `/staff/v1`; never a dashboard session.

    The row id is `stk_` + the token's id part; the token made with the staff member keeps
    the staff member's own id part.
    """

    __tablename__ = "staff_tokens"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    staff_id: Mapped[str] = mapped_column(ForeignKey("staff_members.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class StaffSignInFlow(Base):
    """A sign-in under way, before a session exists: the second step, a factor enrolment,
    or a round trip to the OpenID provider. Named by its own cookie; minutes long."""

    __tablename__ = "staff_sign_in_flows"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    staff_id: Mapped[str | None] = mapped_column(ForeignKey("staff_members.id"), index=True)
    purpose: Mapped[str] = mapped_column(String(20))  # second_factor | enrol | oidc
    csrf_token: Mapped[str] = mapped_column(String(64))
    # Sealed JSON: a TOTP secret being enrolled, a WebAuthn challenge, OIDC state.
    payload_encrypted: Mapped[str | None] = mapped_column(Text)
    next_path: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
