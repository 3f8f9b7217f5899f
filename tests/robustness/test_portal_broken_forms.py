"""A form the parsers refuse, posted to one of the portal's page routes by a signed-in
applicant, is the 400 refusal page, as on the dashboard (docs/platform.md, "Text input";
the dashboard's side is in tests/robustness/test_probe_findings.py)."""

from __future__ import annotations

import httpx
import pytest

from gatehouse.runtime import Runtime
from tests.pages.portal_support import raise_question_and_document, signed_in
from tests.robustness.test_probe_findings import BROKEN_FORMS
from tests.support.factories import TenantFixture


@pytest.mark.parametrize(("body", "content_type"), BROKEN_FORMS)
async def test_a_form_the_parsers_refuse_is_a_refusal_page_on_the_portals_pages(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    body: bytes,
    content_type: str,
) -> None:
    await signed_in(client, runtime, tenant)
    request_id, question, _document = await raise_question_and_document(client, runtime)
    paths = [
        "/portal/form-parser",
        "/portal/upload-documents",
        f"/portal/requests/{request_id}/items/{question}",
        "/portal/language",
    ]
    for path in paths:
        response = await client.post(path, content=body, headers={"content-type": content_type})
        assert response.status_code == 400, (path, response.text[:300])
        assert response.headers["content-type"].startswith("text/html"), path
        assert "The request was refused" in response.text
        assert response.headers["cache-control"] == "no-store"
