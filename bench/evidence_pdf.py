"""How long the evidence pack's PDF takes to render (docs/audit-and-evidence.md).

    .venv/bin/python bench/evidence_pdf.py                  # a 50-page pack, 5 rounds
    .venv/bin/python bench/evidence_pdf.py --entries 4000 --rounds 3

Builds an evidence pack in memory (a case with 20 documents, 10 information requests, notes,
decisions and `--entries` sealed audit entries, enough for 50 pages by default) and
renders it with `gatehouse.evidence.render_pdf`, the function both the staff API and the
dashboard call, `--rounds` times in this process. The reference measured in the same run is
reportlab itself with no layout: the same number of pages with the same count of text lines
drawn straight onto the canvas (`bare`). Prints the pages, the median and worst render time,
the ratio to the bare reference, and the load average before and after.
"""

from __future__ import annotations

import argparse
import io
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# bench/queue.py and bench/profile.py would shadow the standard library's modules.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reportlab.lib.pagesizes import A4  # noqa: E402
from reportlab.pdfgen.canvas import Canvas  # noqa: E402

from gatehouse.evidence import EvidencePack, render_pdf  # noqa: E402
from gatehouse.records.chain import GENESIS, chained_fields, entry_hash  # noqa: E402
from gatehouse.timeutil import utcnow  # noqa: E402

PAGE = re.compile(rb"/Type /Page\b(?!s)")
TARGET_SECONDS = 3.0


def _audit(count: int) -> list[Any]:
    now, prev, entries = utcnow(), GENESIS, []
    for seq in range(1, count + 1):
        fields = chained_fields(
            seq, now, "staff:stf_1a2b3c4d5e6f", "application.note.add", f"note_{seq:08d}",
            "ten_4d3c2b1a0f9e", "app_8f2k1c9d0a7b", f"req_{seq:012d}",
        )  # fmt: skip
        prev = entry_hash(prev, fields)
        entries.append({**fields, "hash": prev})
    return entries


def make_pack(entries: int) -> EvidencePack:
    at = "2026-11-26T18:00:00.000Z"
    items = [
        {"itemId": f"iri_{i}", "type": "question", "prompt": "Source of funds?", "status":
         "accepted", "answer": "Sale of a property in Lyon, 2024.", "documentId": None,
         "answeredAt": at}
        for i in range(3)
    ]  # fmt: skip
    audit = _audit(entries)
    head = {"seq": entries, "hash": audit[-1]["hash"], "at": at, "signature": "a1b2c3." + "0" * 64}
    pack: dict[str, Any] = {
        "tenant": {"tenantId": "ten_4d3c2b1a0f9e", "name": "Acme Bank"},
        "application": {"clientId": "app_8f2k1c9d0a7b", "companyName": "Zeta Ørsted Ltd",
                        "status": "active", "createdAt": at},
        "legalHold": None,
        "members": [{"memberId": "mem_1", "email": "owner@example.test", "role": "applicant",
                     "joinedAt": at}],
        "form": [{"key": f"f{i}", "label": f"Question {i}", "value": "An answer " * 8}
                 for i in range(30)],
        "documents": [{"documentId": f"doc_{i}", "kind": "application/pdf", "type": "passport",
                       "size": 123456, "sha256": f"{i:064x}", "uploadedAt": at}
                      for i in range(20)],
        "infoRequests": [{"requestId": f"ir_{i}", "round": 1, "status": "closed",
                          "comment": "Please explain.", "createdAt": at, "respondedAt": at,
                          "closedAt": at, "cancelledAt": None, "items": items}
                         for i in range(10)],
        "screening": None,
        "risk": None,
        "decisions": [{"action": "approve", "fromStatus": "pending", "toStatus":
                       "pending_approval", "byRole": "analyst", "byEmail": "a@example.test",
                       "comment": None, "at": at}],
        "notes": [{"noteId": f"note_{i}", "clientId": "app_8f2k1c9d0a7b", "authorStaffId": "stf_1",
                   "authorEmail": "a@example.test", "text": "Called the applicant.",
                   "createdAt": at} for i in range(20)],
        "audit": audit,
        "auditHead": head,
        "generatedAt": at,
    }  # fmt: skip
    return pack  # type: ignore[return-value]


def bare(pages: int, lines_per_page: int) -> bytes:
    """reportlab with no layout: the same pages of plain lines drawn onto the canvas."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4)
    for page in range(pages):
        canvas.setFont("Helvetica", 7)
        for line in range(lines_per_page):
            canvas.drawString(50, 800 - line * 9, f"{page} {line} staff:stf_1a2b3c4d5e6f {GENESIS}")
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def timed(fn: Any, *args: Any) -> tuple[float, bytes]:
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def cpu_seconds(fn: Any, *args: Any) -> float:
    """Process CPU time of one call: what the call costs on a machine shared with others."""
    start = time.process_time()
    fn(*args)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1650, help="sealed audit entries")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    pack = make_pack(args.entries)
    render_pdf(pack)  # fonts registered, modules warm
    times, pdf = [], b""
    for _ in range(args.rounds):
        seconds, pdf = timed(render_pdf, pack)
        times.append(seconds)
    cpu = statistics.median(cpu_seconds(render_pdf, pack) for _ in range(args.rounds))
    pages = len(PAGE.findall(pdf))
    lines_per_page = (args.entries * 2 + 400) // max(pages, 1)
    bare_times = [timed(bare, pages, lines_per_page)[0] for _ in range(args.rounds)]
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    median, worst = statistics.median(times), max(times)
    bare_median = statistics.median(bare_times)
    print(f"pages: {pages}, audit entries: {args.entries}, PDF {len(pdf) / 1024:.0f} KiB")
    print(f"evidence pack: median {median:.2f} s, worst {worst:.2f} s ({args.rounds} rounds)")
    print(f"evidence pack, process CPU time: median {cpu:.2f} s")
    print(f"bare reportlab, same pages and lines: median {bare_median:.2f} s")
    print(f"ratio pack / bare: {median / bare_median:.1f}")
    verdict = "MET" if worst <= TARGET_SECONDS else "MISS"
    print(f"target: a 50-page pack in <= {TARGET_SECONDS:.0f} s: {verdict}")
    print(f"load average before: {' / '.join(load_before)}, after: {' / '.join(load_after)}")


if __name__ == "__main__":
    main()
