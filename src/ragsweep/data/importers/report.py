"""What an import did: `ImportReport`, whose `summary()` the CLI prints and whose `notes()`
dataset.json records (docs/importing.md, "What maps to what").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragsweep.data.labels import judged_note


@dataclass(frozen=True)
class ImportReport:
    """What an import did; `summary()` is what the CLI prints.

    Skipped questions: `unjudged` have no judgement at all, `no_relevant` only judgements of
    grade 0, `empty` no text. Dropped judgements: their query or document is not in the source
    files, or the grade rule drops their code.
    """

    name: str
    documents: int
    renamed_documents: int
    empty_documents: int
    questions: int
    slices: dict[str, int]
    labels_per_grade: dict[str, int]
    skipped_unjudged: tuple[str, ...]
    skipped_no_relevant: tuple[str, ...]
    skipped_empty: tuple[str, ...]
    dropped_unknown_query: int
    dropped_unknown_document: int
    dropped_by_rule: int
    out: Path | None = None

    @property
    def skipped(self) -> int:
        """Source queries that did not become questions."""
        return len(self.skipped_unjudged) + len(self.skipped_no_relevant) + len(self.skipped_empty)

    def notes(self) -> dict[str, Any]:
        """The counts as dataset.json records them."""
        return {
            "documents": self.documents,
            "renamed_documents": self.renamed_documents,
            "empty_documents": self.empty_documents,
            "questions": self.questions,
            "labels_per_grade": self.labels_per_grade,
            "skipped_questions": {
                "no_judgement": list(self.skipped_unjudged),
                "no_relevant_judgement": list(self.skipped_no_relevant),
                "empty_text": list(self.skipped_empty),
            },
            "dropped_judgements": {
                "unknown_query": self.dropped_unknown_query,
                "unknown_document": self.dropped_unknown_document,
                "dropped_by_grade_rule": self.dropped_by_rule,
            },
        }

    def summary(self) -> str:
        """A few lines saying what was written and what was left out."""
        where = f" to {self.out}" if self.out is not None else ""
        grades = ", ".join(f"grade {g}: {n}" for g, n in self.labels_per_grade.items())
        slices = ", ".join(f"{s} {n}" for s, n in self.slices.items())
        lines = [
            f"wrote dataset {self.name!r}{where}: {self.documents} documents, "
            f"{self.questions} questions, {sum(self.labels_per_grade.values())} labels "
            f"({grades})",
            f"slices: {slices}",
            f"skipped questions: {self.skipped} ({len(self.skipped_unjudged)} without any "
            f"judgement, {len(self.skipped_no_relevant)} without a relevant one, "
            f"{len(self.skipped_empty)} with empty text)",
            f"dropped judgements: {self.dropped_unknown_query} for unknown queries, "
            f"{self.dropped_unknown_document} for unknown documents, {self.dropped_by_rule} by "
            "the grade rule",
        ]
        warning = judged_note(self.labels_per_grade, self.questions)
        if warning:
            lines.append(f"note: {warning}")
            lines.append(
                "note: `ragsweep data check DIR` measures how much of a BM25 top k nobody "
                "judged on this folder"
            )
        if self.renamed_documents or self.empty_documents:
            lines.append(
                f"documents: {self.renamed_documents} ids made safe (the source id is each "
                f"wording's title), {self.empty_documents} empty in the source"
            )
        return "\n".join(lines)
