"""The evidence pack of an application (docs/audit-and-evidence.md).

What others may use: the pack (`evidence_pack`), its shape and its PDF (`render_pdf`).
"""

from gatehouse.evidence.pdf import render_pdf
from gatehouse.evidence.schemas import EvidencePack
from gatehouse.evidence.service import evidence_pack

__all__ = [
    "EvidencePack",
    "evidence_pack",
    "render_pdf",
]
