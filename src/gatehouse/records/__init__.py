"""Records a regulator can trust: the sealed audit chain (docs/audit-and-evidence.md).

What other areas may use: the chain's rule, sealing, verifying, the signed head, the export
and the sealed entries of one application.
"""

from gatehouse.records.chain import GENESIS, entry_hash
from gatehouse.records.queries import application_entries
from gatehouse.records.schemas import AuditHead, SealedEntry, sealed_entry
from gatehouse.records.sealing import run_sealer, seal_pending
from gatehouse.records.service import current_head, export_chain
from gatehouse.records.verify import Verdict, verify_chain, verify_head

__all__ = [
    "GENESIS",
    "AuditHead",
    "SealedEntry",
    "Verdict",
    "application_entries",
    "current_head",
    "entry_hash",
    "export_chain",
    "run_sealer",
    "seal_pending",
    "sealed_entry",
    "verify_chain",
    "verify_head",
]
