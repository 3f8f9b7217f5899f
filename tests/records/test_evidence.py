"""The evidence pack (docs/reference/staff-api.md §16.4): roles, erasure, the JSON content and
the PDF's text as `pdftotext` extracts it, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from gatehouse.records import seal_pending
from gatehouse.runtime import Runtime
from tests.documents.support import applicant, pdf_bytes, upload
from tests.support.audit import audit_actions
from tests.support.factories import StaffFixture, TenantFixture, make_staff

pdftotext = shutil.which("pdftotext")
FOOTER = re.compile(r"audit head seq (\d+) ([0-9a-f]{64})")


async def approved_case(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> tuple[str, str, StaffFixture, StaffFixture]:
    """An application with one uploaded document, proposed by an analyst and countersigned
    by an MLRO: (clientId, the document's SHA-256, analyst, mlro)."""
    made = await applicant(client, tenant, companyName="Zeta Ørsted Ltd")
    uploaded = await upload(client, pdf_bytes(b"evidence"), "application/pdf")
    assert uploaded.status_code == 201, uploaded.text
    analyst = await make_staff(runtime, "analyst")
    mlro = await make_staff(runtime, "mlro")
    path = f"/staff/v1/applications/{made.client_id}/decisions"
    for who, action in ((analyst, "approve"), (mlro, "countersign")):
        body: dict[str, object] = {"action": action}
        if action == "approve":
            body["acknowledgeUnsatisfied"] = "Checked by phone."
        answer = await client.post(path, json=body, headers=who.headers)
        assert answer.status_code == 200, answer.text
    pack = await client.get(
        f"/staff/v1/applications/{made.client_id}/evidence",
        params={"format": "json"},
        headers=mlro.headers,
    )
    sha = pack.json()["documents"][0]["sha256"]
    return made.client_id, sha, analyst, mlro


async def test_the_json_pack_holds_the_case_and_the_sealed_trail(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id, sha, analyst, mlro = await approved_case(client, runtime, tenant)
    await seal_pending(runtime)
    answer = await client.get(
        f"/staff/v1/applications/{client_id}/evidence",
        params={"format": "json"},
        headers=mlro.headers,
    )
    assert answer.status_code == 200
    pack = answer.json()
    assert pack["application"]["clientId"] == client_id
    assert pack["application"]["status"] == "active"
    assert len(sha) == 64
    assert pack["documents"][0]["kind"] == "application/pdf"
    emails = [d["byEmail"] for d in pack["decisions"]]
    assert analyst.email in emails
    assert mlro.email in emails
    # Screening and risk are the staff reads (never screened here: no list is loaded).
    assert pack["screening"] == {"status": "not_screened", "screenedAt": None, "data": []}
    assert pack["risk"]["level"] == "low"
    assert pack["risk"]["override"] is None
    assert pack["members"][0]["role"] == "applicant"
    assert pack["audit"], "the sealed entries of the application"
    assert all(len(entry["hash"]) == 64 for entry in pack["audit"])
    assert pack["auditHead"]["seq"] >= pack["audit"][-1]["seq"]
    # Each export is audited.
    exports = [a for a in await audit_actions(runtime, "evidence.export") if a[2] == client_id]
    assert len(exports) == 2


@pytest.mark.skipif(pdftotext is None, reason="pdftotext (poppler-utils) is not installed")
async def test_the_pdf_text_holds_what_a_regulator_looks_for(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, tmp_path: Path
) -> None:
    client_id, sha, analyst, mlro = await approved_case(client, runtime, tenant)
    await seal_pending(runtime)
    answer = await client.get(f"/staff/v1/applications/{client_id}/evidence", headers=mlro.headers)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/pdf"
    assert answer.content.startswith(b"%PDF-")
    head = (
        await client.get("/staff/v1/audit/head", headers=(await make_staff(runtime)).headers)
    ).json()
    pdf = tmp_path / "pack.pdf"
    pdf.write_bytes(answer.content)
    done = await asyncio.to_thread(
        subprocess.run,
        [str(pdftotext), "-layout", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    )
    text = done.stdout
    for wanted in (client_id, "Zeta Ørsted Ltd", sha, analyst.email, mlro.email):
        assert wanted in text, wanted
    # The footer of every page carries the head the pack was made at.
    pages = text.split("\f")
    pages = [page for page in pages if page.strip()]
    footers = [FOOTER.findall(page) for page in pages]
    assert all(len(found) == 1 for found in footers), footers
    assert len({found[0] for found in footers}) == 1  # one head, on every page
    seq, head_hash = footers[0][0]
    assert head["seq"] >= int(seq)
    assert head_hash in text.replace(f"audit head seq {seq} {head_hash}", "")  # in the body too


async def test_an_analyst_is_refused_and_an_erased_case_is_gone(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, staff: StaffFixture
) -> None:
    made = await applicant(client, tenant)
    analyst = await make_staff(runtime, "analyst")
    path = f"/staff/v1/applications/{made.client_id}/evidence"
    assert (await client.get(path, headers=analyst.headers)).status_code == 403
    bad = await client.get(path, params={"format": "docx"}, headers=staff.headers)
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "invalid-argument"
    missing = await client.get("/staff/v1/applications/app_nope/evidence", headers=staff.headers)
    assert missing.status_code == 404
    erased = await client.post(
        f"/staff/v1/applications/{made.client_id}/erase", headers=staff.headers
    )
    assert erased.status_code == 200
    gone = await client.get(path, headers=staff.headers)
    assert gone.status_code == 410
    assert gone.json()["error"]["code"] == "failed-precondition"
