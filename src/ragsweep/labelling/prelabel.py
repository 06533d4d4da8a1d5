"""Offline pre-labeller: the cosine between a question and a clause in the project's LSA space,
turned into a grade by two thresholds fitted on the human labels the set already has.

No network and no model download: `LSASimilarity` fits `ragsweep.retrieval.dense.LSAEmbedder`
(TF-IDF + truncated SVD, BLAS on one thread, so bit-for-bit repeatable) on the clause texts of
the corpus, every document version, a clause's text being its heading, a newline, then its text.
Questions are projected with the fitted model; similarity is the dot product of the unit vectors
in float64 (a question with no known term has the zero vector and similarity 0).

Grading rule (`grade`): similarity >= t2 -> 2, else >= t1 -> 1, else 0; t1 < t2.
`fit_thresholds` picks (t1, t2) on a grid maximising quadratic-weighted kappa with the human
grades; ties (kappa within 1e-12) go to the smaller t1, then the smaller t2. Fitting uses only
judged pairs: an unlabelled pair is not taken as grade 0. Kappa on the fitting items is
in-sample, so optimistic by the two fitted parameters.

Every pre-label carries provenance: `source` "model", `labeller` (the scorer and its settings
plus the thresholds) and `at` (an ISO 8601 timestamp the caller passes, so runs are repeatable).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from ragsweep.data.schema import LABELS_FILE, Dataset, clause_id
from ragsweep.errors import UserError
from ragsweep.labelling.grader_pairs import KEY
from ragsweep.labelling.kappa import GRADES, confusion, kappa_from_confusion
from ragsweep.labelling.texttable import format_table
from ragsweep.retrieval.dense import LSAEmbedder

#: default threshold grid: cosines -1.00 to 1.00 in steps of 0.01 (t2 = 1.00: grade 2 only for
#: a question pointing exactly the clause's way)
DEFAULT_GRID: tuple[float, ...] = tuple(i / 100 for i in range(-100, 101))
#: kappas closer than this count as tied when fitting thresholds
TIE_TOLERANCE = 1e-12
#: the value of `source` on every pre-label this module writes
SOURCE = "model"


@dataclass(frozen=True)
class Thresholds:
    """Similarity cut-offs: >= t1 grades 1, >= t2 grades 2 (t1 < t2)."""

    t1: float
    t2: float

    def __post_init__(self) -> None:
        if not (np.isfinite(self.t1) and np.isfinite(self.t2) and self.t1 < self.t2):
            raise UserError(
                f"thresholds need finite t1 < t2, got t1={self.t1!r}, t2={self.t2!r}; "
                "swap or fix them"
            )

    def describe(self) -> str:
        """`t1=0.25,t2=0.55`: the form carried in a pre-label's `labeller`."""
        return f"t1={self.t1:g},t2={self.t2:g}"


def grade(similarities: Sequence[float] | np.ndarray, thresholds: Thresholds) -> np.ndarray:
    """Grades (int64) of `similarities` under `thresholds`: >= t2 -> 2, >= t1 -> 1, else 0."""
    s = _similarities(similarities)
    return (s >= thresholds.t1).astype(np.int64) + (s >= thresholds.t2).astype(np.int64)


def fit_thresholds(
    similarities: Sequence[float] | np.ndarray,
    human_grades: Sequence[int] | np.ndarray,
    grid: Sequence[float] = DEFAULT_GRID,
) -> Thresholds:
    """The (t1 < t2) from `grid` whose grades best match `human_grades` by quadratic-weighted
    kappa; ties within `TIE_TOLERANCE` go to the smaller t1, then the smaller t2.

    Exhaustive over every grid pair, from counts: for each grid value and human grade, how many
    items have similarity >= the value; a pair's confusion matrix follows from two of those.
    """
    s = _similarities(similarities)
    h = np.asarray(human_grades)
    if len(h) != len(s):
        raise UserError(
            f"fit_thresholds: {len(s)} similarities but {len(h)} human grades; pass one grade "
            "per similarity"
        )
    human = confusion(h, h).diagonal()  # items per human grade; checks the grades are 0-2
    if len(s) == 0:
        raise UserError("fit_thresholds: no items to fit on; pass labelled pairs")
    if np.count_nonzero(human) < 2:
        g = int(np.flatnonzero(human)[0])
        raise UserError(
            f"fit_thresholds: every human grade is {g}; kappa needs at least two different "
            "grades among the fitting items"
        )
    points = np.unique(np.asarray(grid, dtype=np.float64))
    if len(points) < 2 or not np.isfinite(points).all():
        raise UserError("fit_thresholds: the grid needs at least 2 distinct finite values")
    hg = np.asarray(h, dtype=np.int64)
    # at_least[k, g]: items of human grade g with similarity >= points[k]
    at_least = np.stack(
        [
            len(sg) - np.searchsorted(np.sort(sg), points, side="left")
            for sg in (s[hg == g] for g in GRADES)
        ],
        axis=1,
    ).astype(np.float64)
    total = human.astype(np.float64)
    lo = at_least[:, None, :]  # t1 = points[i]
    hi = at_least[None, :, :]  # t2 = points[j]
    shape = (len(points), len(points), len(GRADES))
    counts = np.stack(
        [
            np.broadcast_to(total - lo, shape),
            np.broadcast_to(lo - hi, shape),
            np.broadcast_to(hi, shape),
        ],
        axis=2,
    )  # [i, j, model grade, human grade]
    n = total.sum()
    w = (np.arange(3)[:, None] - np.arange(3)[None, :]).astype(np.float64) ** 2
    expected = counts.sum(axis=3)[..., :, None] * total[None, None, None, :] / n
    den = np.einsum("ijab,ab->ij", expected, w)
    num = np.einsum("ijab,ab->ij", counts, w)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(den > 0, 1.0 - num / den, np.nan)
    kappa[np.tril_indices(len(points))] = np.nan  # t1 < t2 only
    best = np.nanmax(kappa)
    i, j = np.argwhere(kappa >= best - TIE_TOLERANCE)[0]  # row-major: smallest t1, then t2
    return Thresholds(float(points[i]), float(points[j]))


def clause_texts(dataset: Dataset) -> dict[tuple[str, str, str], str]:
    """Text of every clause of the corpus, keyed (document, section, version), in corpus order
    (documents by doc_id, clauses in file order): heading, newline, text."""
    return {
        (c.document, c.section, c.version): f"{c.heading}\n{c.text}"
        for d in dataset.documents
        for c in d.clauses
    }


class LSASimilarity:
    """Cosine of question and clause in an LSA space fitted on the corpus's clause texts.

    `dim` and `seed` go to `LSAEmbedder` (dim clamped to the texts and terms there are).
    """

    def __init__(
        self,
        dataset: Dataset,
        dim: int = 256,
        seed: int = 0,
        extra_questions: Mapping[str, str] | None = None,
    ) -> None:
        """`extra_questions` (qid -> text) adds questions not in the set yet (candidates)."""
        texts = clause_texts(dataset)
        self._embedder = LSAEmbedder(dim=dim, seed=seed)
        self._embedder.fit(list(texts.values()))
        self._row = {key: i for i, key in enumerate(texts)}
        self._clauses = self._embedder.encode(list(texts.values())).astype(np.float64)
        known = dict(zip(dataset.questions["qid"], dataset.questions["text"], strict=True))
        known.update({q: t for q, t in (extra_questions or {}).items() if q not in known})
        self._qrow = {q: i for i, q in enumerate(known)}
        self._questions = self._embedder.encode(list(known.values())).astype(np.float64)

    @property
    def labeller(self) -> str:
        """The scorer and its settings, e.g. `lsa-similarity(dim=256,dim_effective=256,...)`."""
        fp = self._embedder.fingerprint()
        return (
            f"lsa-similarity(dim={fp['dim']},dim_effective={fp['dim_effective']},"
            f"seed={fp['seed']},min_df={fp['min_df']},sublinear_tf={fp['sublinear_tf']},"
            f"ngram_max={fp['ngram_max']},text=heading+text,scikit-learn={fp['scikit-learn']})"
        )

    def score(self, pairs: pd.DataFrame) -> np.ndarray:
        """Similarity (float64) of each row's question (qid) and clause (document, section,
        version); every question must be in the dataset and every clause in its corpus."""
        for col in KEY:
            if col not in pairs.columns:
                raise UserError(
                    f"pairs: field {col!r} is missing; pairs need qid, document, section, version"
                )
        qi, ci = [], []
        for r in pairs[list(KEY)].itertuples(index=False):
            if r.qid not in self._qrow:
                raise UserError(
                    f"pairs: field 'qid': question {r.qid!r} is not in questions.jsonl; add it "
                    "or drop the pair"
                )
            key = (r.document, r.section, r.version)
            if key not in self._row:
                raise UserError(
                    f"pairs: field 'section': clause {clause_id(*key)} is not in "
                    "the corpus snapshot; fix the document, section or version"
                )
            qi.append(self._qrow[r.qid])
            ci.append(self._row[key])
        q = self._questions[np.asarray(qi, dtype=np.int64)]
        c = self._clauses[np.asarray(ci, dtype=np.int64)]
        return np.einsum("nd,nd->n", q, c).reshape(len(qi))


def prelabel(
    pairs: pd.DataFrame, thresholds: Thresholds, *, labeller: str, at: str
) -> pd.DataFrame:
    """Pre-labels for `pairs` (qid, document, section, version, similarity): those columns,
    then grade, source ("model"), labeller (`labeller` plus the thresholds) and at (`at`, an
    ISO 8601 timestamp, kept as given). Row order is that of `pairs`; the input is not changed."""
    for col in (*KEY, "similarity"):
        if col not in pairs.columns:
            raise UserError(
                f"pairs: field {col!r} is missing; pairs need qid, document, section, version "
                "and similarity (LSASimilarity.score)"
            )
    _check_at(at)
    out = pairs[[*KEY, "similarity"]].reset_index(drop=True).copy()
    out["grade"] = grade(out["similarity"].to_numpy(), thresholds)
    out["source"] = SOURCE
    out["labeller"] = f"{labeller};{thresholds.describe()}"
    out["at"] = at
    return out


@dataclass(frozen=True, eq=False)
class PrelabelFit:
    """Thresholds fitted on human labels and how the pre-labels agree with them there.

    `confusion`: 3x3 counts, rows the pre-label grade, columns the human grade. `prelabels`:
    the fitting pairs as `prelabel` returns them, plus `human` (the human grade).
    """

    thresholds: Thresholds
    labeller: str
    n: int
    agree: float
    kappa: float
    kappa_quadratic: float
    confusion: np.ndarray
    prelabels: pd.DataFrame


def check_fittable(dataset: Dataset) -> None:
    """Refuse, in one line naming the file and the fix, a dataset whose labels the offline
    pre-labeller cannot fit its thresholds on: fewer than two different grades."""
    grades = sorted(set(dataset.labels["grade"].astype(int).tolist()))
    if len(grades) >= 2:
        return
    what = f"every label is grade {grades[0]}" if grades else "there are no labels"
    raise UserError(
        f"{dataset.root / LABELS_FILE}: field 'grade': {what}; the offline pre-labeller fits "
        "its thresholds on people's grades and needs at least two different ones: label some "
        "pairs (`labels pool`, then `labels import`), or grade with a chat model (--chat-url, "
        "--chat-model)"
    )


def fit_prelabeller(
    dataset: Dataset,
    *,
    at: str,
    labels: pd.DataFrame | None = None,
    dim: int = 256,
    seed: int = 0,
    grid: Sequence[float] = DEFAULT_GRID,
    scorer: LSASimilarity | None = None,
) -> PrelabelFit:
    """Fit LSA on the corpus, score the labelled pairs (`labels`, default the dataset's
    labels.jsonl: judged pairs only), fit the thresholds on their grades and pre-label them.
    `scorer`: an `LSASimilarity` of this dataset already fitted (then `dim`, `seed` are its)."""
    if labels is None:
        check_fittable(dataset)
        labels = dataset.labels
    scorer = scorer or LSASimilarity(dataset, dim=dim, seed=seed)
    pairs = labels[list(KEY)].reset_index(drop=True).copy()
    human = labels["grade"].to_numpy()
    pairs["similarity"] = scorer.score(pairs)
    thresholds = fit_thresholds(pairs["similarity"].to_numpy(), human, grid)
    out = prelabel(pairs, thresholds, labeller=scorer.labeller, at=at)
    out["human"] = human.astype(np.int64)
    m = confusion(out["grade"].to_numpy(), human)
    return PrelabelFit(
        thresholds=thresholds,
        labeller=scorer.labeller,
        n=int(m.sum()),
        agree=float(np.trace(m) / m.sum()),
        kappa=kappa_from_confusion(m),
        kappa_quadratic=kappa_from_confusion(m, "quadratic"),
        confusion=m,
        prelabels=out,
    )


def render_fit(fit: PrelabelFit) -> str:
    """Plain-text summary: labeller, thresholds, agreement with the human labels on the fitting
    items (in-sample) and the confusion matrix."""
    t = fit.thresholds
    lines = [
        f"Offline pre-labeller: {fit.labeller}",
        f"Thresholds (fitted for quadratic-weighted kappa): grade 1 at similarity >= {t.t1:g}, "
        f"grade 2 at >= {t.t2:g}",
        f"On the {fit.n} fitting items (in-sample): agreement {fit.agree:.3f}, kappa "
        f"{fit.kappa:.3f}, quadratic-weighted kappa {fit.kappa_quadratic:.3f}",
        "",
        "Confusion (rows: pre-label grade, columns: human grade):",
    ]
    body = [[str(g), *(str(int(v)) for v in fit.confusion[g])] for g in GRADES]
    lines += format_table(["model\\human", *(str(g) for g in GRADES)], body)
    return "\n".join(lines)


def _similarities(values: Sequence[float] | np.ndarray) -> np.ndarray:
    s = np.asarray(values, dtype=np.float64)
    if s.ndim != 1:
        raise UserError(f"similarities must be a flat list, got shape {s.shape}")
    if not np.isfinite(s).all():
        raise UserError("similarities contain NaN or infinite values; score every pair")
    return s


def _check_at(at: str) -> None:
    try:
        datetime.fromisoformat(at)
    except (TypeError, ValueError) as err:
        raise UserError(
            f"prelabel: field 'at': {at!r} is not an ISO 8601 timestamp; write e.g. "
            "2025-03-31T12:00:00+00:00"
        ) from err


def prelabel_sheet(
    sheet: pd.DataFrame, dataset: Dataset, *, at: str, chat: Any = None, price: Any = None
) -> tuple[pd.DataFrame, str]:
    """A copy of a judging sheet (`ragsweep.labelling.sheet_columns.SHEET_COLUMNS`, as `read_sheet`
    reads it) with `prelabel` and `prelabel_source` filled, and a one-paragraph summary of how.

    Without `chat`: the offline labeller, thresholds fitted on the dataset's human labels
    (`fit_prelabeller`). With `chat` (a `ragsweep.labelling.chat.ChatLabeller`): the model's
    grade; an item it could not grade gets an empty pre-label and `failed: <reason>` as source.
    The judge's columns (`grade`, `note`, `judge`) are never touched. With `chat`, the summary
    adds what the run cost (`chat.cost_line`; dollars at `price`, a `chat.Price`, when given)."""
    out = sheet.copy()
    pairs = out.rename(columns={"version": "asked", "clause_version": "version"})[list(KEY)]
    if chat is None:
        asked = dict(zip(out["qid"], out["question"], strict=True))  # candidates included
        scorer = LSASimilarity(dataset, extra_questions=asked)  # fitted on the corpus once
        fit = fit_prelabeller(dataset, at=at, scorer=scorer)
        grades = grade(scorer.score(pairs), fit.thresholds)
        out["prelabel"] = [str(int(g)) for g in grades]
        out["prelabel_source"] = f"model {fit.labeller};{fit.thresholds.describe()} at {at}"
        return out, render_fit(fit)
    from ragsweep.labelling.chat import Item

    items = [
        Item(
            str(r.qid),
            str(r.document),
            str(r.section),
            str(r.clause_version),
            str(r.question),
            str(r.clause_text),
        )
        for r in out.itertuples(index=False)
    ]
    labels = chat.label(items)
    out["prelabel"] = ["" if lab.grade is None else str(lab.grade) for lab in labels]
    out["prelabel_source"] = [
        f"failed: {lab.error}" if lab.grade is None else f"model {lab.labeller} at {lab.at}"
        for lab in labels
    ]
    failed = sum(lab.grade is None for lab in labels)
    from ragsweep.labelling.chat import cost_line

    done = f"{len(labels) - failed} of {len(labels)} pairs pre-labelled by {chat.labeller}"
    return out, f"{done}\ncost: {cost_line(chat.last_run, chat.usage, price)}"
