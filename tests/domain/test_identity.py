"""Identity and provisioning input rules (docs/reference/tenant-api.md §5.1, §5.2)."""

from __future__ import annotations

import pytest

from gatehouse.domain.identity import (
    REDIRECT_PATHS,
    InvalidEmail,
    allowed_redirect,
    identity_key,
    is_bound_to_other_email,
    normalize_applicant,
)


def test_email_is_trimmed_and_lowercased() -> None:
    applicant = normalize_applicant("  Ann@Example.COM ")
    assert applicant.email == "ann@example.com"


@pytest.mark.parametrize("email", ["no-at-sign", "", "   ", None, 42, "a@" + "b" * 319])
def test_invalid_emails_are_refused(email: object) -> None:
    with pytest.raises(InvalidEmail):
        normalize_applicant(email)


def test_email_of_exactly_320_characters_is_accepted() -> None:
    email = "a@" + "b" * 318
    assert normalize_applicant(email).email == email


def test_external_ref_and_company_are_trimmed_and_cut_to_200() -> None:
    applicant = normalize_applicant("a@x.test", "  " + "r" * 250, " " + "c" * 300 + " ")
    assert applicant.external_ref == "r" * 200
    assert applicant.company_name == "c" * 200


def test_company_name_defaults_to_email() -> None:
    assert normalize_applicant("A@x.test").company_name == "a@x.test"
    assert normalize_applicant("a@x.test", None, "   ").company_name == "a@x.test"


def test_identity_is_external_ref_when_nonempty_else_email() -> None:
    assert normalize_applicant("a@x.test", "ref-1").identity == "ref:ref-1"
    assert normalize_applicant("a@x.test", "   ").identity == "email:a@x.test"
    assert normalize_applicant("a@x.test").identity == "email:a@x.test"
    assert identity_key(None, "b@x.test") == "email:b@x.test"
    # An email-like ref never collides with an email identity.
    assert identity_key("b@x.test", "c@x.test") != identity_key(None, "b@x.test")


def test_external_ref_bound_to_another_email() -> None:
    assert is_bound_to_other_email("a@x.test", "b@x.test")
    assert not is_bound_to_other_email("a@x.test", "a@x.test")
    assert not is_bound_to_other_email(None, "a@x.test")


def test_redirect_paths_allow_list() -> None:
    for path in ("/upload-documents", "/status", "/form-parser", "/dashboard", "/requests"):
        assert allowed_redirect(path) == path
    assert len(REDIRECT_PATHS) == 5
    for other in ("/admin", "https://evil.test/", "status", "/status/", None, 3):
        assert allowed_redirect(other) is None
