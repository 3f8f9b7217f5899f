"""Normalisation rules shared by every surface (docs/identity.md; docs/reference/tenant-api.md
§5.1, §2.1 rule 4).

Three rules, pure functions:

- `trim`: Unicode white space (the White_Space property: space, tab, line breaks, no-break and
  ideographic spaces…, but not NEL, a C1 control) goes at both ends of a value before
  anything else looks at it.
- `canonical_text`: a value must be sent in NFC or in NFD; it is kept in NFC. A value in
  neither form carries a character that normalisation would silently turn into another one
  (KELVIN SIGN into `K`, OHM SIGN into `Ω`…) and is refused rather than merged.
- `email_identity`: the one comparison form of an email address. The local part is ASCII
  (lowercased); the domain is lowercased ASCII or an internationalised name that IDNA 2008
  accepts as it stands (no case or compatibility mapping), kept as its ASCII `xn--` form. The
  result is ASCII, so no Unicode case mapping, compatibility folding, zero-width character or
  look-alike letter can make two addresses compare equal, or look equal when shown.
"""

from __future__ import annotations

import unicodedata

import idna

MAX_EMAIL = 320
MAX_TEXT = 200

# Unicode's White_Space property, but NEL (U+0085): a C1 control, refused wherever it is.
WHITE_SPACE = (
    "\t\n\v\f\r \xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

# Printable ASCII without the space: what a local part may carry.
_LOCAL_CHARS = frozenset(chr(c) for c in range(0x21, 0x7F))


class InvalidEmail(ValueError):
    """The email breaks the identity rule (docs/identity.md); `str()` says why."""


class NotCanonical(ValueError):
    """The text is in neither NFC nor NFD (docs/identity.md)."""


def trim(value: str) -> str:
    """`value` without Unicode white space at either end."""
    return value.strip(WHITE_SPACE)


def canonical_text(value: str) -> str:
    """`value` in NFC; raises NotCanonical when it was sent in neither NFC nor NFD."""
    if value.isascii() or unicodedata.is_normalized("NFC", value):
        return value
    if unicodedata.is_normalized("NFD", value):
        return unicodedata.normalize("NFC", value)
    raise NotCanonical("uses a character that Unicode normalisation would change")


def _ascii_lower(value: str) -> str:
    return "".join(c.lower() if c.isascii() else c for c in value)


def _domain(domain: str) -> str:
    if not domain or domain.startswith(".") or domain.endswith(".") or ".." in domain:
        raise InvalidEmail("must have a domain after @")
    lowered = _ascii_lower(domain)
    if lowered.isascii():
        if any(c not in _LOCAL_CHARS for c in lowered):
            raise InvalidEmail("must not contain spaces")
        return lowered
    try:
        # IDNA 2008 as it stands: no UTS 46 mapping, so no case or compatibility folding.
        return idna.encode(lowered, uts46=False).decode("ascii")
    except idna.IDNAError:
        raise InvalidEmail("has a domain that is not a valid internationalised name") from None


def email_identity(value: object) -> str:
    """The comparison (and stored) form of an email; raises InvalidEmail saying why."""
    if not isinstance(value, str):
        raise InvalidEmail("must be a string")
    try:
        text = canonical_text(trim(value))
    except NotCanonical:
        raise InvalidEmail("uses a character that Unicode normalisation would change") from None
    local, at, domain = text.rpartition("@")
    if not at or not local:
        raise InvalidEmail("must contain @ after a local part")
    if not local.isascii():
        raise InvalidEmail("must have an ASCII local part (before @)")
    if any(c not in _LOCAL_CHARS for c in local):
        raise InvalidEmail("must not contain spaces or control characters")
    email = f"{local.lower()}@{_domain(domain)}"
    if len(email) > MAX_EMAIL:
        raise InvalidEmail(f"must be at most {MAX_EMAIL} characters")
    return email


def normalize_email(value: object) -> str | None:
    """`email_identity(value)`, or None when the rule refuses it."""
    try:
        return email_identity(value)
    except InvalidEmail:
        return None


def email_issue(value: object) -> str:
    """Why the rule refuses `value` (for `details[].issue`); empty when it does not."""
    try:
        email_identity(value)
    except InvalidEmail as exc:
        return str(exc)
    return ""


def cut_text(value: str | None) -> str | None:
    """Trimmed, in NFC, cut to 200 characters (companyName, names). Text in neither NFC nor
    NFD is kept in NFC too: only identities refuse it (`canonical_text`)."""
    if value is None:
        return None
    return unicodedata.normalize("NFC", trim(value))[:MAX_TEXT]
