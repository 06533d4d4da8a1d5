"""Assemble the sample dataset folder (docs/schema.md, version 1) and write it atomically."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

from ragsweep.data import swap_in_folder
from ragsweep.data.samplegen.querylog import QueryLog
from ragsweep.data.samplegen.review import PRELABEL_MODEL, Review
from ragsweep.data.samplegen.spec import SLICES, VERSIONS
from ragsweep.data.samplegen.wordings import Corpus
from ragsweep.data.write import check_out

GENERATOR_NAME = "ragsweep.sample"
#: bump when the generator's output for a given seed changes (not tied to the package version,
#: so a release does not change the committed sample's bytes)
GENERATOR_VERSION = "2"
NAME = "ragsweep-sample"
DESCRIPTION = (
    "A fictional insurer's home, motor and travel policy wordings in 2024 and 2025 editions, with"
    " the schedules, product summaries, FAQs and endorsement booklets that sit beside them;"
    " 400 questions drawn from a raw 2024-2025 query log by `ragsweep labels sample`, in five"
    " slices, labelled by construction and judged on a pool of several retrievers; the raw log"
    " (duplicates, personal data, out-of-scope requests) and a 50-question review sample with a"
    " second reviewer's labels and biased model pre-labels. Not real policies or people."
)

#: relevance.md: the written rule the labels follow (docs/schema.md); judges read it
RELEVANCE_RULE = """# Relevance rule (ragsweep sample)

Judge a passage against the question as the policyholder asked it, about their own policy:
the product and the wording version in `questions.jsonl`.

- **2, answers fully**: the passage states the answer. Every passage of the policyholder's
  documents that states it counts: the wording clause, and a schedule row, an FAQ answer or a
  second clause that states the same thing in full.
- **1, supports**: the passage states something the answer needs but not the answer itself:
  the exception or exclusion on the same topic, a condition, the definition of a word the
  answer turns on, a clause the answering clause refers to; or it states the answer only in
  part (an FAQ answer or a schedule row giving one of the clause's figures).
- **0, not relevant**: everything else. In particular a passage of **another wording version**
  is 0 even when its text is word for word the same: the answer must be cited from the
  policyholder's own document (a 2024 clause is not evidence of what a 2025 policy says, and a
  retriever filtered to the right version never sees it). The same clause in another product's
  wording is 0 for the same reason. A product summary line that says what a clause is about
  and where to find it ("What you pay yourself when a leak causes damage (see section 4.12)")
  is 0: it states none of the answer.
- **Two-part questions** ("is it covered, and what do I pay?"): the passage answering the part
  the question was asked for is 2; one answering only the other part is 1.

Judges disagree most on the judgement calls this rule names: identical twins, definitions as
support, two-part questions, and a limit printed without its exception (a schedule row). The
review files show how often.
"""


def _json(obj: object) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def jsonl_bytes(rows: list[dict]) -> bytes:
    """JSON Lines as the sample's files are written: UTF-8, one object per line."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def manifest(files: dict[str, bytes]) -> bytes:
    """`sha256sum` lines (`<hex>  <path>`) for every file, sorted by path."""
    lines = [f"{hashlib.sha256(files[p]).hexdigest()}  {p}\n" for p in sorted(files)]
    return "".join(lines).encode("utf-8")


def assemble(
    corpus: Corpus,
    log: QueryLog,
    questions: list[dict],
    labels: dict[str, list[tuple[str, str, str, int]]],
    seed: int,
    *,
    review: Review | None = None,
    pooled: list[dict] | None = None,
    questions_meta: list | None = None,
    extra_notes: dict | None = None,
) -> dict[str, bytes]:
    """Every file of a sample dataset folder from its parts, relative path -> bytes.

    `questions` are questions.jsonl rows, `labels` qid -> judged (document, section, version,
    grade) in file order; the review files, `review/pool.jsonl` and the notes that describe them
    are added when `review` and `pooled` are given (`ragsweep.labelling.sample_build` builds all
    of them; it first assembles a folder without them to pool on)."""
    files: dict[str, bytes] = {}
    for (document, version), wording in sorted(corpus.documents.items()):
        files[f"corpus/{document}@{version}.json"] = _json(wording)
    files["questions.jsonl"] = jsonl_bytes(questions)
    label_rows = [
        {"qid": q["qid"], "document": d, "section": s, "version": v, "grade": g}
        for q in questions
        for d, s, v, g in labels[q["qid"]]
    ]
    files["labels.jsonl"] = jsonl_bytes(label_rows)
    files["relevance.md"] = RELEVANCE_RULE.encode("utf-8")
    files["query_log.jsonl"] = jsonl_bytes(log.entries)
    if review is not None:
        files["review/reviewer2.jsonl"] = jsonl_bytes(
            [
                {"qid": qid, "document": d, "section": s, "version": v, "grade": g}
                for qid, (d, s, v, g) in review.reviewer2
            ]
        )
        files["review/prelabels.jsonl"] = jsonl_bytes(
            [
                {
                    "qid": qid,
                    "document": d,
                    "section": s,
                    "version": v,
                    "grade": g,
                    "model": PRELABEL_MODEL,
                }
                for qid, (d, s, v, g) in review.prelabels
            ]
        )
    if pooled is not None:
        files["review/pool.jsonl"] = jsonl_bytes(pooled)

    clauses = [c for w in corpus.documents.values() for p in w["parts"] for c in p["clauses"]]
    relevant = Counter(r["qid"] for r in label_rows if r["grade"] >= 1)
    twos = Counter(r["qid"] for r in label_rows if r["grade"] == 2)
    multi = sum(1 for q in questions if relevant[q["qid"]] >= 2)
    hinged = (
        0
        if questions_meta is None
        else sum(1 for q in questions_meta if q.candidate.hinge is not None)
    )
    notes = {
        "fictional": "Insurer, wordings, people and contact details are invented.",
        "corpus": {
            "documents": len(corpus.documents),
            "clauses": len(clauses),
            "words": sum(len(c["heading"].split()) + len(c["text"].split()) for c in clauses),
            "versions": list(VERSIONS),
            "kinds": dict(
                sorted(Counter(_doc_kind(w["document"]) for w in corpus.documents.values()).items())
            ),
            "clauses_only_in": {
                v: sorted(
                    f"{d}/{s}@{v}"
                    for d, s, ver in corpus.texts
                    if ver == v
                    and not any((d, s, other) in corpus.texts for other in VERSIONS if other != v)
                )
                for v in VERSIONS
            },
        },
        "questions": {
            "total": len(questions),
            "per_slice": {s: sum(q["slice"] == s for q in questions) for s in SLICES},
            "per_subset": dict(sorted(Counter(q["subset"] for q in questions).items())),
            "with_2plus_relevant": multi,
            "share_2plus_relevant": round(multi / len(questions), 4),
            "grade2_per_question": {
                str(n): c for n, c in sorted(Counter(twos[q["qid"]] for q in questions).items())
            },
            "asked_about_a_version_change": hinged,
            "labels_by_grade": {
                str(g): n for g, n in sorted(Counter(r["grade"] for r in label_rows).items())
            },
        },
        "query_log": log.notes,
    }
    if review is not None:
        notes["review"] = review.notes
    notes.update(extra_notes or {})
    files["dataset.json"] = _json(
        {
            "schema_version": 1,
            "name": NAME,
            "description": DESCRIPTION,
            "slices": list(SLICES),
            "generator": {"name": GENERATOR_NAME, "version": GENERATOR_VERSION, "seed": seed},
            "notes": notes,
        }
    )
    files["MANIFEST.sha256"] = manifest(files)
    return files


def _doc_kind(document: str) -> str:
    """`wording` for a policy wording (`home`), else the derived kind (`home-faq` -> `faq`)."""
    return document.split("-", 1)[1] if "-" in document else "wording"


def write_dataset(out: Path, files: dict[str, bytes]) -> None:
    """Write `files` into a temporary sibling of `out`, then swap it in, so a crash never leaves
    a half-written dataset. An existing `out` is replaced only if it is empty or a dataset folder
    (holds `dataset.json`)."""
    out = Path(out)
    check_out(out, force=True)
    swap_in_folder(out, files)
