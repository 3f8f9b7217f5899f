"""The evidence pack as a PDF a person reads (docs/audit-and-evidence.md, "The evidence pack").

Made with reportlab, offline, from the same pack as the JSON: A4 pages, a header naming the
tenant and the case on every page, a footer with the audit chain head's hash and the page
number. Text uses Debian's DejaVu fonts when they are installed (every script they cover),
else the Vera fonts reportlab ships (Latin). Hashes are set on lines of their own in a
monospaced face, so a text extraction (`pdftotext`) gives each one whole.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import reportlab
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from gatehouse.evidence.schemas import EvidencePack
from gatehouse.records import SealedEntry

DEBIAN_FONTS = Path("/usr/share/fonts/truetype/dejavu")
BUNDLED_FONTS = Path(reportlab.__file__).parent / "fonts"
MARGIN = 18 * mm
AUDIT_CHUNK = 30


@cache
def fonts() -> tuple[str, str, str]:
    """(regular, bold, mono) font names, registered once per process."""
    choices = [
        (DEBIAN_FONTS, ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf")),
        (BUNDLED_FONTS, ("Vera.ttf", "VeraBd.ttf", "VeraMono.ttf")),
    ]
    for folder, files in choices:
        if (folder / files[0]).is_file() and (folder / files[1]).is_file():
            names = ("EvidenceSans", "EvidenceSans-Bold", "EvidenceMono")
            for name, file in zip(names, files, strict=True):
                path = folder / file
                if not path.is_file():  # Vera has no mono face: the sans one stands in
                    path = folder / files[0]
                pdfmetrics.registerFont(TTFont(name, str(path)))
            return names
    return ("Helvetica", "Helvetica-Bold", "Courier")


@cache
def styles() -> dict[str, ParagraphStyle]:
    regular, bold, mono = fonts()
    return {
        "title": ParagraphStyle("title", fontName=bold, fontSize=16, leading=20, spaceAfter=6),
        "h2": ParagraphStyle(
            "h2", fontName=bold, fontSize=12, leading=15, spaceBefore=10, spaceAfter=4
        ),
        "body": ParagraphStyle("body", fontName=regular, fontSize=9, leading=12),
        "small": ParagraphStyle("small", fontName=regular, fontSize=8, leading=10),
        "mono": ParagraphStyle("mono", fontName=mono, fontSize=7.5, leading=9.5),
    }


def _p(text: object, style: str = "body") -> Paragraph:
    return Paragraph(escape("" if text is None else str(text)), styles()[style])


def _pairs(rows: Iterable[tuple[str, object]]) -> Table:
    """A two-column table of labels and values."""
    data = [[_p(label, "small"), _p(value)] for label, value in rows]
    table = Table(data, colWidths=[45 * mm, None], hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.lightgrey),
                ("TEXTCOLOR", (0, 0), (0, -1), colors.dimgrey),
            ]
        )
    )
    return table


def _case(pack: EvidencePack) -> list[Flowable]:
    app = pack["application"]
    hold = pack["legalHold"]
    rows: list[tuple[str, object]] = [
        ("Tenant", f"{pack['tenant']['name']} ({pack['tenant']['tenantId']})"),
        ("Client id", app["clientId"]),
        ("Company", app.get("companyName")),
        ("Status", app["status"]),
        ("Created", app.get("createdAt")),
        ("Legal hold", f"{hold['reason']} (since {hold['placedAt']})" if hold else "none"),
        ("Generated", pack["generatedAt"]),
    ]
    members = [(m["role"], f"{m['email']} (joined {m['joinedAt']})") for m in pack["members"]]
    form = [(a["label"], a["value"]) for a in pack["form"]]
    return [
        _p(f"Evidence pack: {app.get('companyName') or app['clientId']}", "title"),
        _pairs(rows),
        _p("Members", "h2"),
        _pairs(members) if members else _p("None."),
        _p("Form answers", "h2"),
        _pairs(form) if form else _p("None."),
    ]


def _documents(pack: EvidencePack) -> list[Flowable]:
    out: list[Flowable] = [_p("Documents", "h2")]
    for doc in pack["documents"]:
        out.append(
            _p(
                f"{doc['type']} · {doc['kind']} · {doc['size']} bytes · uploaded "
                f"{doc['uploadedAt']} · {doc['documentId']}"
            )
        )
        out.append(_p(f"SHA-256 {doc['sha256'] or '(not recorded)'}", "mono"))
        out.append(Spacer(1, 3))
    if not pack["documents"]:
        out.append(_p("None."))
    return out


def _requests(pack: EvidencePack) -> list[Flowable]:
    out: list[Flowable] = [_p("Information requests", "h2")]
    for request in pack["infoRequests"]:
        out.append(
            _p(
                f"{request['requestId']} · round {request['round']} · {request['status']} · "
                f"raised {request['createdAt']}: {request['comment'] or ''}"
            )
        )
        for item in request["items"]:
            answer = item["answer"] or item["documentId"] or "(no answer)"
            out.append(
                _p(f"- {item['type']}: {item['prompt']} → {answer} [{item['status']}]", "small")
            )
    if not pack["infoRequests"]:
        out.append(_p("None."))
    return out


def _screening(pack: EvidencePack) -> list[Flowable]:
    screening = pack["screening"]
    out: list[Flowable] = [
        _p("Screening", "h2"),
        _pairs(
            [
                ("Status", screening["status"]),
                ("Screened", screening["screenedAt"] or "never"),
            ]
        ),
    ]
    for hit in screening["data"]:
        subject = hit["subject"]
        out.append(
            _p(
                f"{subject['name']} ({subject['kind']}, {subject['field']}) ~ "
                f"{hit['entityName']} · {hit['list']} {hit['entityId']} · score "
                f"{hit['score']:.2f} · {', '.join(hit['topics']) or 'no topics'}"
            )
        )
        resolved = (
            f"{hit['status']} by {hit['resolvedBy']} at {hit['resolvedAt']}: {hit['comment']}"
            if hit["resolvedBy"]
            else hit["status"]
        )
        why = "; ".join(hit["explanation"])
        out.append(_p(f"- {resolved}" + (f" (matched: {why})" if why else ""), "small"))
    if not screening["data"]:
        out.append(_p("No hits."))
    return out


def _risk(pack: EvidencePack) -> list[Flowable]:
    risk = pack["risk"]
    override = risk["override"]
    rows: list[tuple[str, object]] = [
        ("Level", risk["level"]),
        ("Computed", f"{risk['computedLevel']} (score {risk['score']})"),
        (
            "Override",
            f"{override['level']} by {override['by']} at {override['at']}: {override['reason']}"
            if override
            else "none",
        ),
    ]
    rows += [
        (f"+{f['points']}" if f["points"] >= 0 else str(f["points"]), f["label"])
        for f in risk["factors"]
    ]
    return [_p("Risk", "h2"), _pairs(rows)]


def _decisions_and_notes(pack: EvidencePack) -> list[Flowable]:
    out: list[Flowable] = [_p("Decisions", "h2")]
    for d in pack["decisions"]:
        who = d["byEmail"] or d["byRole"] or "system"
        line = f"{d['at']} · {d['action']} · {d['fromStatus']} → {d['toStatus']} · by {who}"
        out.append(_p(line + (f": {d['comment']}" if d["comment"] else "")))
    if not pack["decisions"]:
        out.append(_p("None."))
    out.append(_p("Internal notes", "h2"))
    for note in pack["notes"]:
        out.append(_p(f"{note['createdAt']} · {note['authorEmail']}: {note['text']}"))
    if not pack["notes"]:
        out.append(_p("None."))
    return out


def _audit_table(entries: Sequence[SealedEntry]) -> Table:
    """One table of entries, in the monospaced face: a row of fields, then the entry's hash
    on a row of its own (drawn across the empty cells beside it)."""
    _regular, _bold, mono = fonts()
    data: list[list[Any]] = [["seq", "at", "actor", "action", "target"]]
    for entry in entries:
        data.append([entry["seq"], entry["at"], entry["actor"], entry["action"], entry["target"]])
        data.append(["", entry["hash"], "", "", ""])
    table = Table(data, colWidths=[12 * mm, 36 * mm, 42 * mm, 42 * mm, None], hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), mono, 6.5),
                ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.grey),
                ("TOPPADDING", (0, 0), (-1, -1), 1),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
            ]
        )
    )
    return table


def _audit(pack: EvidencePack) -> list[Flowable]:
    head = pack["auditHead"]
    out: list[Flowable] = [
        _p("Audit trail (sealed entries)", "h2"),
        _p(f"Chain head: seq {head['seq']}, sealed {head['at']}, signature {head['signature']}"),
        _p(f"Head hash {head['hash']}", "mono"),
        Spacer(1, 4),
    ]
    entries = pack["audit"]
    # Tables of AUDIT_CHUNK entries: a table split across pages costs reportlab time that
    # grows with its length, so a long trail is many short tables (bench/evidence_pdf.py).
    for start in range(0, len(entries), AUDIT_CHUNK):
        out.append(_audit_table(entries[start : start + AUDIT_CHUNK]))
    if not entries:
        out.append(_p("No sealed entries yet."))
    return out


def _page_decorations(pack: EvidencePack) -> Any:
    regular, _bold, mono = fonts()
    tenant = pack["tenant"]["name"]
    case = pack["application"]["clientId"]
    company = pack["application"].get("companyName") or ""
    head = pack["auditHead"]

    def draw(canvas: Canvas, doc: SimpleDocTemplate) -> None:
        width, height = A4
        canvas.saveState()
        canvas.setFont(regular, 8)
        canvas.drawString(MARGIN, height - 12 * mm, f"{tenant} · case {case} · {company}")
        canvas.drawRightString(width - MARGIN, height - 12 * mm, "Evidence pack")
        canvas.setFont(mono, 6.5)
        canvas.drawString(MARGIN, 10 * mm, f"audit head seq {head['seq']} {head['hash']}")
        canvas.setFont(regular, 8)
        canvas.drawRightString(width - MARGIN, 10 * mm, f"page {doc.page}")
        canvas.restoreState()

    return draw


def render_pdf(pack: EvidencePack) -> bytes:
    """The pack as PDF bytes."""
    out = io.BytesIO()
    doc = SimpleDocTemplate(
        out,
        pagesize=A4,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN + 4 * mm,
        bottomMargin=MARGIN,
        title=f"Evidence pack {pack['application']['clientId']}",
        author="Gatehouse",
        invariant=1,
    )
    story: list[Flowable] = []
    for section in (
        _case,
        _documents,
        _requests,
        _screening,
        _risk,
        _decisions_and_notes,
        _audit,
    ):
        story.extend(section(pack))
    decorate = _page_decorations(pack)
    doc.build(story, onFirstPage=decorate, onLaterPages=decorate)
    return out.getvalue()
