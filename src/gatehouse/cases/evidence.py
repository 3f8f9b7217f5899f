"""What the case page shows staff of the applicant's own words and files (docs/documents.md §5).

Beside each checklist item, the evidence that satisfies it: the uploaded documents whose type is
the item's key (`document` items) and the application form's answers (`form` items). Each
document carries the SHA-256 of its original bytes, from its custody row, and whether the
dashboard can show it inline (an image or a PDF, not erased).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.media import INLINE_MEDIA_TYPES, THUMBNAIL_MEDIA_TYPES
from gatehouse.storage.tables.applications import Application, Document, Intake
from gatehouse.storage.tables.documents_custody import DocumentCustody


@dataclass(frozen=True, slots=True)
class DocumentEntry:
    document: Document
    sha256: str | None
    # What a person calls it: the checklist item's label for its type, else the type in words.
    label: str = ""

    @property
    def name(self) -> str:
        """The label, with the name the file had on the applicant's device when known."""
        label = self.label or self.document.type.replace("_", " ")
        filename = self.document.filename
        return f"{label} · {filename}" if filename else label

    @property
    def thumbnail(self) -> bool:
        return not self.erased and self.document.content_type in THUMBNAIL_MEDIA_TYPES

    @property
    def erased(self) -> bool:
        return self.document.status == "erased"

    @property
    def viewable(self) -> bool:
        return not self.erased and self.document.content_type in INLINE_MEDIA_TYPES


@dataclass(frozen=True, slots=True)
class FormAnswer:
    key: str
    label: str
    value: str


@dataclass
class CaseEvidence:
    form_answers: list[FormAnswer]
    documents: list[DocumentEntry]
    by_id: dict[str, DocumentEntry] = field(default_factory=dict)

    def for_item(self, item: dict[str, Any]) -> list[DocumentEntry]:
        """The documents uploaded for a checklist item (their type is its key)."""
        return [entry for entry in self.documents if entry.document.type == item.get("key")]


def _shown(value: object) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return "" if value is None else str(value)


def form_answers(application: Application, intake: Intake | None) -> list[FormAnswer]:
    """The stored form answers, in the intake's field order, then any others by key."""
    stored = dict(application.form_data or {})
    answers: list[FormAnswer] = []
    for entry in (intake.form_fields if intake is not None else None) or []:
        if not isinstance(entry, dict) or entry.get("key") not in stored:
            continue
        key = str(entry["key"])
        answers.append(FormAnswer(key, str(entry.get("label") or key), _shown(stored.pop(key))))
    answers.extend(FormAnswer(key, key, _shown(stored[key])) for key in sorted(stored))
    return answers


async def case_evidence(
    session: AsyncSession,
    application: Application,
    intake: Intake | None,
    documents: list[Document],
    labels: dict[str, str] | None = None,
) -> CaseEvidence:
    digests: dict[str, str] = {}
    if documents:
        rows = await session.execute(
            select(DocumentCustody.document_id, DocumentCustody.sha256).where(
                DocumentCustody.document_id.in_([d.id for d in documents]),
                DocumentCustody.data_key_encrypted.is_not(None),
            )
        )
        digests = dict(rows.tuples().all())
    named = labels or {}
    entries = [
        DocumentEntry(document, digests.get(document.id), named.get(document.type, ""))
        for document in documents
    ]
    return CaseEvidence(
        form_answers=form_answers(application, intake),
        documents=entries,
        by_id={entry.document.id: entry for entry in entries},
    )
