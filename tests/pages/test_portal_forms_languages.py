"""The portal without scripts (docs/reference/portal.md, "The application form", "Languages",
"Branding"): one form that never loses what was typed, the reader's language, the tenant's
name, colours and logo."""

from __future__ import annotations

import re

import httpx

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import InfoRequestItem
from tests.documents.support import png_bytes
from tests.pages.helpers import csrf_of
from tests.pages.portal_support import (
    CHECKLIST,
    PDF,
    raise_question_and_document,
    signed_in,
    the_application,
)
from tests.support.factories import TenantFixture, add_intake, make_staff, make_tenant

FIELDS = [
    {"key": "registrationNumber", "label": "Registration number", "type": "text", "required": True},
    {"key": "email", "label": "Contact email", "type": "email", "required": True},
    {"key": "activity", "label": "What you do", "type": "textarea", "required": True},
    {"key": "listed", "label": "Listed", "type": "checkbox", "required": False},
]
TYPED = {
    "companyName": "Blue <Holdings> & Co",
    "field.registrationNumber": "SC 123/456",
    "field.email": "ops@blue.test",
    "field.activity": "Tea & coffee\nwholesale",
    "field.listed": "yes",
}


async def sign_in_with_fields(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, **extra: str
) -> str:
    await signed_in(client, runtime, tenant, form_fields=FIELDS, company_name=None, **extra)
    page = await client.get("/portal/form-parser")
    return csrf_of(page.text)


def shows_every_typed_value(html: str) -> None:
    assert 'value="Blue &lt;Holdings&gt; &amp; Co"' in html
    assert 'value="SC 123/456"' in html
    assert 'value="ops@blue.test"' in html
    assert ">Tea &amp; coffee\nwholesale</textarea>" in html
    assert re.search(r'id="f-field-listed" name="field.listed" value="yes" checked', html)


async def test_submitting_too_early_keeps_every_value_and_points_at_the_error(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await sign_in_with_fields(client, runtime, tenant)
    posted = await client.post(
        "/portal/form-parser", data={"csrf_token": csrf, "intent": "submit", **TYPED}
    )
    # Post/Redirect/Get: the draft is saved, the page says what is missing after a redirect.
    assert posted.status_code == 303
    assert posted.headers["location"] == "/portal/form-parser?refused=submit"
    early = await client.get(posted.headers["location"])
    shows_every_typed_value(early.text)
    # The summary links to the field; the field is marked and takes the focus.
    assert 'class="error-summary" role="alert"' in early.text
    assert '<a href="#f-confirm">Confirmation: Tick the box' in early.text
    assert re.search(r'id="f-confirm"[^>]*aria-invalid="true"[^>]*autofocus', early.text)
    assert early.text.count("autofocus") == 1
    # Submit saved first: the draft holds what was typed; nothing was submitted.
    app = await the_application(runtime)
    assert app.submitted_at is None
    assert app.company_name == "Blue <Holdings> & Co"
    assert app.form_data == {
        "registrationNumber": "SC 123/456",
        "email": "ops@blue.test",
        "activity": "Tea & coffee\nwholesale",
        "listed": True,
    }

    done = await client.post(
        "/portal/form-parser",
        data={"csrf_token": csrf, "intent": "submit", "confirm": "yes", **TYPED},
    )
    assert done.status_code == 303
    assert done.headers["location"] == "/portal/status?done=submitted"
    assert (await the_application(runtime)).submitted_at is not None


async def test_missing_fields_are_listed_in_page_order_and_the_first_takes_the_focus(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await sign_in_with_fields(client, runtime, tenant)
    typed = {**TYPED, "field.registrationNumber": "  ", "field.activity": ""}
    posted = await client.post(
        "/portal/form-parser",
        data={"csrf_token": csrf, "intent": "submit", "confirm": "yes", **typed},
    )
    assert posted.status_code == 303
    assert posted.headers["location"] == "/portal/form-parser?refused=submit&confirm=yes"
    refused = await client.get(posted.headers["location"])
    links = re.findall(r'<li><a href="#([^"]+)">', refused.text)
    assert links == ["f-field-registrationNumber", "f-field-activity"]
    assert re.search(r'id="f-field-registrationNumber"[^>]*autofocus', refused.text)
    assert refused.text.count("autofocus") == 1
    assert 'value="ops@blue.test"' in refused.text
    assert re.search(r'id="f-confirm" name="confirm" value="yes" required checked', refused.text)
    assert (await the_application(runtime)).submitted_at is None


async def test_save_draft_and_autosave(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await sign_in_with_fields(client, runtime, tenant)
    saved = await client.post(
        "/portal/form-parser", data={"csrf_token": csrf, "intent": "save", **TYPED}
    )
    assert saved.status_code == 303
    assert saved.headers["location"] == "/portal/form-parser?done=saved"
    page = await client.get("/portal/form-parser?done=saved")
    shows_every_typed_value(page.text)
    assert "data-autosave" in page.text

    # The page's script posts the form as it is typed in: 204, saved, nothing else.
    auto = await client.post(
        "/portal/form-parser",
        data={"csrf_token": csrf, "intent": "autosave", **TYPED, "field.email": "x@blue.test"},
    )
    assert auto.status_code == 204
    assert (await the_application(runtime)).form_data["email"] == "x@blue.test"
    too_long = await client.post(
        "/portal/form-parser",
        data={"csrf_token": csrf, "intent": "autosave", **TYPED, "field.email": "x" * 10001},
    )
    assert too_long.status_code == 400
    assert too_long.content == b""
    assert (await the_application(runtime)).form_data["email"] == "x@blue.test"
    forged = await client.post("/portal/form-parser", data={"intent": "autosave", **TYPED})
    assert forged.status_code == 403


async def test_a_refused_draft_keeps_the_other_values(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await sign_in_with_fields(client, runtime, tenant)
    typed = {**TYPED, "field.registrationNumber": "9" * 10001}
    refused = await client.post("/portal/form-parser", data={"csrf_token": csrf, **typed})
    assert refused.status_code == 400
    assert 'value="ops@blue.test"' in refused.text
    assert ">Tea &amp; coffee\nwholesale</textarea>" in refused.text
    assert 'id="f-field-registrationNumber-error">This is too long.' in refused.text
    assert '<a href="#f-field-registrationNumber">' in refused.text
    assert (await the_application(runtime)).form_data in (None, {})


async def test_refused_answers_and_uploads_keep_what_was_typed(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await signed_in(client, runtime, tenant)
    request_id, question, document = await raise_question_and_document(client, runtime)
    csrf = csrf_of((await client.get("/portal/requests")).text)

    too_long = "Tea " * 3000
    refused = await client.post(
        f"/portal/requests/{request_id}/items/{question}",
        data={"csrf_token": csrf, "answer": too_long},
    )
    assert refused.status_code == 400
    assert f">{too_long}</textarea>" in refused.text
    assert f'id="answer-{question}-error">Your answer is too long.' in refused.text
    assert re.search(rf'id="answer-{question}"[^>]*autofocus', refused.text)
    assert f'<a href="#answer-{question}">What do you sell?: ' in refused.text

    upload = await client.post(
        f"/portal/requests/{request_id}/items/{document}",
        data={"csrf_token": csrf, "answer": "The bill of March"},
        files={"file": ("bill.txt", b"hello", "text/plain")},
    )
    assert upload.status_code == 400
    assert ">The bill of March</textarea>" in upload.text
    assert f'id="file-{document}-error">The file must be a PDF, PNG, JPEG or WebP' in upload.text
    assert re.search(rf'id="file-{document}"[^>]*autofocus', upload.text)

    sent = await client.post(
        f"/portal/requests/{request_id}/items/{document}",
        data={"csrf_token": csrf, "answer": "The bill of March"},
        files={"file": ("bill.pdf", PDF, "application/pdf")},
    )
    assert sent.status_code == 303
    async with runtime.db.read() as session:
        item = await session.get(InfoRequestItem, document)
    assert item is not None
    assert (item.status, item.answer) == ("answered", "The bill of March")
    assert item.document_id is not None


async def test_the_language_follows_the_browser_then_the_picker(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await sign_in_with_fields(client, runtime, tenant)
    german = await client.get(
        "/portal/form-parser", headers={"Accept-Language": "fr-CH, de-AT;q=0.8, en;q=0.5"}
    )
    assert '<html lang="de" dir="ltr">' in german.text
    assert german.headers["content-language"] == "de"
    assert ">Entwurf speichern<" in german.text
    assert ">Antrag einreichen<" in german.text
    assert "Save draft" not in german.text
    arabic = await client.get("/portal/dashboard", headers={"Accept-Language": "ar"})
    assert '<html lang="ar" dir="rtl">' in arabic.text
    assert "نظرة عامة" in arabic.text
    unknown = await client.get("/portal/dashboard", headers={"Accept-Language": "fr, ja"})
    assert '<html lang="en" dir="ltr">' in unknown.text

    # The picker: a cookie, then back to the page; it outranks Accept-Language.
    page = await client.get("/portal/status")
    assert '<button type="submit" name="lang" value="ar"' in page.text
    chosen = await client.post("/portal/language", data={"lang": "ar", "next": "/portal/status"})
    assert chosen.status_code == 303
    assert chosen.headers["location"] == "/portal/status"
    cookie = chosen.headers["set-cookie"]
    assert cookie.startswith("gatehouse_lang=ar;")
    assert "Path=/portal" in cookie
    assert "HttpOnly" in cookie
    assert "SameSite=lax" in cookie
    after = await client.get("/portal/status", headers={"Accept-Language": "de"})
    assert 'dir="rtl"' in after.text
    assert "حالة الطلب" in after.text

    # Never another site, never an unknown language.
    for target in ("https://evil.test/", "//evil.test/portal", "/dashboard", "/portal\\x"):
        away = await client.post("/portal/language", data={"lang": "de", "next": target})
        assert away.headers["location"] == "/portal", target
    ignored = await client.post("/portal/language", data={"lang": "xx", "next": "/portal"})
    assert "set-cookie" not in ignored.headers
    cross = await client.post(
        "/portal/language",
        data={"lang": "de", "next": "/portal"},
        headers={"Origin": "https://evil.test"},
    )
    assert cross.status_code == 403

    # The staff dashboard is not translated, whatever the portal last spoke.
    sign_in = await client.get("/dashboard/sign-in", headers={"Accept-Language": "de"})
    assert '<html lang="en" dir="ltr">' in sign_in.text
    assert "Skip to content" in sign_in.text


async def test_dates_and_numbers_in_the_language(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await sign_in_with_fields(client, runtime, tenant)
    done = await client.post(
        "/portal/form-parser",
        data={"csrf_token": csrf, "intent": "submit", "confirm": "yes", **TYPED},
    )
    assert done.status_code == 303
    submitted = (await the_application(runtime)).submitted_at
    assert submitted is not None
    german = await client.get("/portal/status", headers={"Accept-Language": "de"})
    # In UTC as the language writes it; the page's script shows the reader's own zone.
    assert f"data-local>{submitted:%d.%m.%Y, %H:%M} UTC</time></dd>" in german.text
    english = await client.get("/portal/status", headers={"Accept-Language": "en"})
    assert f">{submitted:%b} {submitted.day}, {submitted:%Y, %H:%M} UTC</time></dd>" in english.text
    assert f'<time datetime="{submitted:%Y-%m-%dT%H:%M}' in english.text
    progress = await client.get("/portal/dashboard", headers={"Accept-Language": "de"})
    assert "1 von 2 erforderlichen Punkten erledigt." in progress.text


async def test_the_tenant_is_named_and_branded_on_every_page(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    staff = await make_staff(runtime, "admin")
    label_id = await add_intake(
        runtime, tenant.tenant_id, "KYB", order=0, checklist=CHECKLIST, form_fields=FIELDS
    )
    created = await client.post(
        "/v1/login-sessions",
        json={"email": "ana@example.test", "labelId": label_id},
        headers=tenant.headers,
    )
    path = created.json()["loginUrl"].removeprefix("http://testserver")

    plain = await client.get(path)
    assert "/portal/theme/" not in plain.text  # the default colours
    assert (
        '<span dir="auto">Acme</span>' in plain.text
    )  # the tenant's name when it has no display name

    await client.patch(
        f"/staff/v1/tenants/{tenant.tenant_id}",
        json={"displayName": "Acme Bank", "accentColor": "#0B6E4F"},
        headers=staff.headers,
    )
    logo = await client.put(
        f"/staff/v1/tenants/{tenant.tenant_id}/logo",
        content=png_bytes(),
        headers={**staff.headers, "Content-Type": "image/png"},
    )
    logo_url = logo.json()["logoUrl"]
    branded = [await client.get(path)]
    assert "Acme Bank asked you to fill in an application." in branded[0].text
    await client.post(path)
    for page in ("/portal/dashboard", "/portal/form-parser", "/portal/status"):
        branded.append(await client.get(page))
    for answer in branded:
        assert '<span dir="auto">Acme Bank</span>' in answer.text
        assert f'<img class="brand-logo" src="{logo_url}" alt=""' in answer.text
        assert '<link rel="stylesheet" href="/portal/theme/0b6e4f.css">' in answer.text
        assert "<title>" in answer.text
        assert " · Acme Bank</title>" in answer.text


async def test_the_sandbox_banner_speaks_the_language(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    sandbox = await make_tenant(runtime, name="Trial", environment="sandbox")
    await signed_in(client, runtime, sandbox)
    german = await client.get("/portal/status", headers={"Accept-Language": "de"})
    assert 'class="sandbox-banner"' in german.text
    assert "Sandbox: ein Testantrag." in german.text
    arabic = await client.get("/portal/status", headers={"Accept-Language": "ar"})
    assert "بيئة تجريبية" in arabic.text


async def test_a_file_declared_too_large_is_refused_on_the_page_it_came_from(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    """A body whose Content-Length is over the upload limit (and within the edge's bound)
    is refused before it is read: the requests page points at the item's file input, the
    documents page says it at the top; both 413, in the reader's language."""
    await signed_in(client, runtime, tenant)
    request_id, _question, document = await raise_question_and_document(client, runtime)
    csrf = csrf_of((await client.get("/portal/requests")).text)
    limit = runtime.settings.upload_max_bytes
    declared = {"Content-Length": str(limit + 100 * 1024)}
    body = {"csrf_token": csrf, "answer": "The bill"}
    files = {"file": ("bill.pdf", PDF, "application/pdf")}

    item = await client.post(
        f"/portal/requests/{request_id}/items/{document}", data=body, files=files, headers=declared
    )
    assert item.status_code == 413
    assert "<h1>Information requests</h1>" in item.text
    assert f'id="file-{document}-error">The file is too large.' in item.text
    assert re.search(rf'id="file-{document}"[^>]*autofocus', item.text)
    assert f'<a href="#file-{document}">Upload a utility bill: ' in item.text

    german = {**declared, "Accept-Language": "de"}
    page = await client.post(
        "/portal/upload-documents",
        data={"csrf_token": csrf, "type": "passport"},
        files=files,
        headers=german,
    )
    assert page.status_code == 413
    assert '<p class="notice notice-error" role="alert">Die Datei ist zu groß.</p>' in page.text
    async with runtime.db.read() as session:
        stored = await session.get(InfoRequestItem, document)
    assert stored is not None
    assert stored.status == "open"


async def test_file_inputs_carry_the_upload_limit_for_the_pages_script(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    """Every file input says the limit and the refusal, in the reader's language, so that
    static/portal.js refuses a larger file beside it before it is sent."""
    await signed_in(client, runtime, tenant)
    await raise_question_and_document(client, runtime)
    limit = runtime.settings.upload_max_bytes
    for path in ("/portal/upload-documents", "/portal/requests"):
        page = await client.get(path, headers={"Accept-Language": "de"})
        inputs = re.findall(r'<input [^>]*type="file"[^>]*>', page.text)
        assert inputs, path
        for tag in inputs:
            assert f'data-max-bytes="{limit}"' in tag
            assert 'data-too-large="Die Datei ist zu groß."' in tag
