"""`labels generate`: synthetic questions drafted from the corpus for a team without a query
log, labelled by construction and kept apart from the real set (docs/labelling.md, "Questions
from the corpus").

1. **Draft**, slice by slice (dataset.json's slices): the clauses that suit the slice
   (`generate_spec`: part kinds and patterns of the generation file), in an order drawn by the
   seed, each giving one question: a template filled from its key terms (offline, the default)
   or a chat model's (`generate_chat`). Drafts that duplicate the set's questions or each other
   (`dedup_key`, `dedup`: the rule `labels sample` applies) are dropped, and the next clause
   is drafted, until the slice has its count or no clause is left.
2. **Label**: the source clause is grade 2 for its question (document, section, version). A
   question can be answered elsewhere too, so the retrieval systems' top passages are pooled
   (`pool.pool`, the dataset's default systems) and graded by the chat judge when given, else
   the offline pre-labeller (`prelabel`); the relevance rule sets a clause of another version
   or product to 0.
3. **Write** (only when asked): the questions join questions.jsonl as subset `synthetic`, the
   labels labels.jsonl, with a changelog row for each naming the generator, the judge and the
   time; all or nothing (`labelfiles.write_dataset_files`).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragsweep.data import Dataset, admits, clause_id, load_dataset
from ragsweep.data.schema import LABELS_FILE, QUESTIONS_FILE, SYNTHETIC, Clause, Document
from ragsweep.errors import UserError
from ragsweep.labelling.dedup import matches_any
from ragsweep.labelling.dedup_key import near_key, normalise
from ragsweep.labelling.generate_chat import Ask, ChatGenerator
from ragsweep.labelling.generate_spec import GenerationSpec, SliceSpec, load_spec
from ragsweep.labelling.labelfiles import (
    Change,
    Key,
    check_stamp,
    jsonl_bytes,
    order_labels,
    read_rows,
    write_dataset_files,
)
from ragsweep.labelling.pool import DEFAULT_SYSTEMS, pool
from ragsweep.labelling.pool_systems import base_overrides
from ragsweep.labelling.prelabel import check_fittable, prelabel_sheet
from ragsweep.labelling.sampling import question_id
from ragsweep.labelling.scrub import Scrubber

#: questions drafted per slice unless told otherwise
DEFAULT_PER_SLICE = 20
#: passages each system's top holds for the judging pool
DEFAULT_DEPTH = 10
#: a synthetic question's id: this prefix + 10 hex digits of sha1 of its normalised text
ID_PREFIX = "g"


@dataclass(frozen=True)
class Drafted:
    """A generated question and the clause it was drafted from (asked about that clause's
    product and version)."""

    qid: str
    text: str
    slice: str
    product: str | None
    version: str
    source: Clause

    def row(self, added: str) -> dict[str, Any]:
        """Its questions.jsonl row."""
        return {
            "qid": self.qid,
            "text": self.text,
            "slice": self.slice,
            "product": self.product,
            "version": self.version,
            "subset": SYNTHETIC,
            "added": added,
        }


@dataclass(frozen=True)
class Generated:
    """What `generate` drafted and labelled, and whether it was written (`applied`).

    `labels`: label rows (qid, document, section, version, grade), each question's source
    clause first; `changes`: the changelog rows written (or that `apply` would write); `short`:
    slice -> why it got fewer than `per_slice`; `duplicates`: drafts dropped as duplicates of the
    set or of each other; `generator`, `judge`: who drafted and who graded the pool."""

    questions: tuple[Drafted, ...]
    labels: tuple[dict[str, Any], ...]
    changes: tuple[Change, ...]
    per_slice: int
    seed: int
    short: Mapping[str, str]
    duplicates: int
    generator: str
    judge: str
    systems: tuple[str, ...]
    depth: int
    applied: bool = False
    slices: tuple[str, ...] = field(default=())
    #: kind -> personal items the scrubber replaced in a chat model's questions
    scrubbed: Mapping[str, int] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """Questions per slice, every slice of the dataset in report order."""
        return {s: sum(q.slice == s for q in self.questions) for s in self.slices}

    def grades(self) -> dict[int, int]:
        """Labels per grade (2, 1, 0)."""
        return {g: sum(r["grade"] == g for r in self.labels) for g in (2, 1, 0)}


def generate(
    dataset_dir: str | Path,
    *,
    per_slice: int = DEFAULT_PER_SLICE,
    seed: int = 0,
    at: str,
    chat: ChatGenerator | None = None,
    judge: Any = None,
    spec: GenerationSpec | None = None,
    systems: Mapping[str, Sequence[str]] | None = None,
    depth: int = DEFAULT_DEPTH,
    overrides: Sequence[str] = (),
    apply: bool = False,
) -> Generated:
    """Draft up to `per_slice` synthetic questions per slice of the dataset, label them and,
    with `apply`, write them (see the module docstring).

    `chat`: the chat generator (None: the offline templates of `spec`, default the built-in
    `generate.yaml`); `judge`: a `chat.ChatLabeller` grading the pool (None: the offline
    pre-labeller, thresholds fitted on the set's own labels); `systems` (default
    `pool.DEFAULT_SYSTEMS`) and `depth`: the judging pool; `overrides`: added to the pool's base
    config (`cache.dir=null`). `at` stamps the changelog and is the questions' `added` date.
    Nothing is written unless every question is drafted and graded.
    """
    if isinstance(per_slice, bool) or not isinstance(per_slice, int) or per_slice < 1:
        raise UserError(f"generate: field 'per_slice': {per_slice!r} is not a whole number >= 1")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UserError(f"generate: field 'seed': {seed!r} is not a whole number >= 0")
    check_stamp(at, None, "generate")
    root = Path(dataset_dir)
    ds = load_dataset(root)
    if judge is None:  # before any drafting: the offline judge fits on the set's grades
        check_fittable(ds)
    spec = spec or (chat.spec if chat is not None else load_spec())
    generator = chat.generator if chat is not None else f"templates {spec.source} seed={seed}"
    scrubbed: dict[str, int] = {}
    drafted, short, duplicates = _draft(ds, spec, per_slice, seed, chat, scrubbed)
    systems = dict(systems or DEFAULT_SYSTEMS)
    labels: list[dict[str, Any]] = []
    changes: list[Change] = []
    who_judged = "nobody (no question drafted)"
    if drafted:
        graded, who_judged = _judge(root, ds, drafted, judge, systems, depth, overrides, at)
        for q in drafted:
            src = q.source
            key = (q.qid, src.document, src.section, src.version)
            reason = f"synthetic question drafted from {src.clause_id} by {generator}"
            changes.append(Change("question", generator, q.qid, reason=reason, source="generate"))
            labels.append(_label(key, 2))
            changes.append(
                Change.on(
                    "add",
                    generator,
                    key,
                    new_grade=2,
                    reason="the clause a synthetic question was drafted from",
                    source="generate",
                )
            )
            for other, (grade, source, note) in graded.get(q.qid, {}).items():
                if other == key:
                    continue
                labels.append(_label(other, grade))
                changes.append(
                    Change.on(
                        "add",
                        who_judged,
                        other,
                        new_grade=grade,
                        reason="pooled judging of a synthetic question",
                        source=source,
                        note=note,
                    )
                )
    out = Generated(
        questions=tuple(drafted),
        labels=tuple(labels),
        changes=tuple(changes),
        per_slice=per_slice,
        seed=seed,
        short=short,
        duplicates=duplicates,
        generator=generator,
        judge=who_judged,
        systems=tuple(sorted(systems)),
        depth=depth,
        slices=tuple(ds.slices),
        scrubbed=scrubbed,
    )
    if apply and drafted:
        _write(root, out, at)
        out = replace(out, applied=True)
    return out


def _label(key: Key, grade: int) -> dict[str, Any]:
    qid, document, section, version = key
    return {
        "qid": qid,
        "document": document,
        "section": section,
        "version": version,
        "grade": grade,
    }


def _sources(
    ds: Dataset, spec: GenerationSpec, rule: SliceSpec, chat: bool
) -> list[tuple[Document, Clause]]:
    """The clauses that suit `rule`, by clause id; offline, only those a template can use."""
    out = []
    for doc in ds.documents:
        for clause in doc.clauses:
            if spec.skipped(clause) or not rule.suits(clause):
                continue
            if chat or spec.usable(rule, spec.terms_of(doc, clause)):
                out.append((doc, clause))
    return sorted(out, key=lambda dc: dc[1].clause_id)


def _draft(
    ds: Dataset,
    spec: GenerationSpec,
    per_slice: int,
    seed: int,
    chat: ChatGenerator | None,
    scrubbed: dict[str, int],
) -> tuple[list[Drafted], dict[str, str], int]:
    """The drafted questions, slice by slice; why a slice fell short; drafts dropped as
    duplicates. Each slice draws its clause order and templates from its own generator,
    seeded by (seed, CRC-32 of the slice name), so a slice's draw depends on nothing else. A
    chat model's questions go through the dataset's scrubber before anything else reads them
    (`scrubbed` counts what it replaced, by kind)."""
    texts = list(ds.questions["text"])
    seen_norm = {normalise(t) for t in texts}
    seen_keys = [near_key(t, mark=True) for t in texts]
    qids = set(ds.questions["qid"])
    drafted: list[Drafted] = []
    short: dict[str, str] = {}
    duplicates = 0
    for name in ds.slices:
        rule = spec.slices.get(name)
        if rule is None:
            short[name] = (
                f"{spec.source} has no entry for slice {name!r}; copy it, add one (voice, "
                "kinds, patterns, templates) and pass it with --templates"
            )
            continue
        sources = _sources(ds, spec, rule, chat is not None)
        rng = np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])
        order = [sources[i] for i in rng.permutation(len(sources))]
        got, dropped, i = 0, 0, 0
        while got < per_slice and i < len(order):
            batch = order[i : i + (per_slice - got)]
            i += len(batch)
            if chat is None:
                written = [_fill(spec, rule, doc, clause, rng) for doc, clause in batch]
            else:  # a model may write personal data a wording never holds: scrubbed first
                clean = chat.questions(
                    [_ask(rule, doc, clause) for doc, clause in batch],
                    Scrubber.for_dataset(ds.root),
                )
                written = [c.text for c in clean]
                for c in clean:
                    for kind, n in c.counts.items():
                        scrubbed[kind] = scrubbed.get(kind, 0) + n
            for (doc, clause), text in zip(batch, written, strict=True):
                norm, key = normalise(text), near_key(text, mark=True)
                qid = question_id(text, ID_PREFIX)
                if norm in seen_norm or qid in qids or matches_any([key], seen_keys)[0]:
                    dropped += 1
                    continue
                seen_norm.add(norm)
                seen_keys.append(key)
                qids.add(qid)
                drafted.append(Drafted(qid, text, name, doc.product, doc.version, clause))
                got += 1
        duplicates += dropped
        if got < per_slice:
            short[name] = (
                f"{got} of {per_slice}: {len(sources)} clause(s) suit it in {spec.source}"
                + (f", {dropped} draft(s) were duplicates" if dropped else "")
            )
    return drafted, short, duplicates


def _fill(
    spec: GenerationSpec, rule: SliceSpec, doc: Document, clause: Clause, rng: np.random.Generator
) -> str:
    terms = spec.terms_of(doc, clause)
    usable = spec.usable(rule, terms)
    template = usable[int(rng.integers(len(usable)))]
    text = template.format(**terms)
    return text[:1].upper() + text[1:]  # a template may open with a term: "{topic} ..."


def _ask(rule: SliceSpec, doc: Document, clause: Clause) -> Ask:
    return Ask(rule.slice, rule.voice, doc.product or "", doc.version, clause.heading, clause.text)


def _judge(
    root: Path,
    ds: Dataset,
    drafted: Sequence[Drafted],
    judge: Any,
    systems: Mapping[str, Sequence[str]],
    depth: int,
    overrides: Sequence[str],
    at: str,
) -> tuple[dict[str, dict[Key, tuple[int, str, str | None]]], str]:
    """qid -> pooled pair -> (grade, source, note), and who graded them. Each row's grade goes
    to the clauses of the same text it stands for (`same_text_clauses`); a grade of 1 or 2 on
    a clause of another version or product than the question asks about is 0 (relevance
    rule). A pair the chat judge could not grade stops the run in one line."""
    frame = pd.DataFrame(
        [(q.qid, q.text, q.slice, q.product, q.version) for q in drafted],
        columns=["qid", "text", "slice", "product", "version"],
    )
    pooled = pool([*base_overrides(root), *overrides], systems, depth=depth, questions=frame)
    filled, _ = prelabel_sheet(pooled.rows, ds, at=at, chat=judge)
    failed = filled[filled["prelabel"] == ""]
    if len(failed):
        row = failed.iloc[0]
        raise UserError(
            f"{judge.shown_url}: {len(failed)} pooled pair(s) could not be graded with model "
            f"{judge.model!r} ({row['prelabel_source'].removeprefix('failed: ')}); check that "
            "the server is up and serves this model, then run the command again: replies so far "
            "are cached, and nothing was written"
        )
    asked = {q.qid: (q.product, q.version) for q in drafted}
    product_of = {(d.document, d.version): d.product for d in ds.documents}
    clauses = {c.clause_id: c for d in ds.documents for c in d.clauses}
    out: dict[str, dict[Key, tuple[int, str, str | None]]] = {}
    for r in filled.itertuples(index=False):
        grade = int(r.prelabel)
        row_id = clause_id(r.document, r.section, r.clause_version)
        members = [(clauses[row_id], None)]
        members += [
            (clauses[t.strip()], f"graded in the row of {row_id}, the same text")
            for t in str(r.same_text_clauses).split(";")
            if t.strip()
        ]
        for clause, note in members:
            g = grade
            if g >= 1 and not admits(
                *asked[r.qid], product_of[(clause.document, clause.version)], clause.version
            ):
                said = (
                    f"graded {g}; another version or product than the question asks about is 0 "
                    "(relevance rule)"
                )
                g, note = 0, said if note is None else f"{said}; {note}"
            key = (r.qid, clause.document, clause.section, clause.version)
            out.setdefault(r.qid, {}).setdefault(key, (g, f"pool {r.systems}", note))
    source = str(filled["prelabel_source"].iloc[0]) if len(filled) else "model nobody"
    return out, source.removeprefix("model ").rsplit(" at ", 1)[0]


def _write(root: Path, done: Generated, at: str) -> None:
    """The questions and labels into the folder, with the changelog, all or nothing."""
    questions = [*read_rows(root, QUESTIONS_FILE), *(q.row(at[:10]) for q in done.questions)]
    labels = order_labels(
        [*read_rows(root, LABELS_FILE), *done.labels], [q["qid"] for q in questions]
    )
    files = {QUESTIONS_FILE: jsonl_bytes(questions), LABELS_FILE: jsonl_bytes(labels)}
    write_dataset_files(root, files, list(done.changes), at)
