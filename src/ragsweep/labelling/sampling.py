"""`ragsweep labels sample LOG`: a stratified sample of new questions from a raw query log.

`sample_log` reads the log (`logreader`, every text scrubbed as it is read), then `draw_sample`
keeps the entries since a date, slices them (`slicerules`), counts traffic shares (`traffic`),
removes exact and near-duplicates (`dedup_key`, `dedup`) and questions already in the labelled
set, and draws up to a target per slice, seeded per slice. `SampleResult` counts each step;
`render_summary`, `write_clusters` and `read_candidates` are what the command prints, writes
and reads back. docs/labelling.md, "1. Sample questions from the query log".
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragsweep.data.reader import table
from ragsweep.errors import UserError
from ragsweep.labelling.dedup import NEAR_METHOD, NEAR_THRESHOLD, matches_any, near_duplicates
from ragsweep.labelling.dedup_key import near_key, normalise
from ragsweep.labelling.logreader import LogEntry, Scrub, parse_when, read_log
from ragsweep.labelling.slicerules import UNKNOWN, SliceClassifier, load_classifier
from ragsweep.labelling.traffic import traffic_shares

#: questions drawn per slice unless told otherwise
DEFAULT_TARGET = 80

#: a new question's id: this prefix + the first characters of sha1(normalised text)
ID_PREFIX, ID_HASH_CHARS = "s", 10


def question_id(text: str, prefix: str = ID_PREFIX) -> str:
    """`prefix` (`s`) + the first 10 hex digits of sha1 of the normalised text: the same
    question gets the same id on every run."""
    digest = hashlib.sha1(normalise(text).encode("utf-8")).hexdigest()
    return f"{prefix}{digest[:ID_HASH_CHARS]}"


@dataclass(frozen=True)
class SampledQuestion:
    """A drawn question: its id, scrubbed text, slice, timestamp and line in the log."""

    id: str
    text: str
    slice: str
    ts: datetime | None
    line: int


@dataclass(frozen=True)
class SliceCount:
    """Entries of a slice left after dedupe and exclusion (`available`), its target, and how
    many were drawn; `shortfall` is what the slice lacks to reach the target. `matched`: the
    entries (after `since`, before dedupe) the rules or the slice column put in the slice."""

    target: int
    available: int
    sampled: int
    matched: int = 0

    @property
    def shortfall(self) -> int:
        return self.target - self.sampled


@dataclass(frozen=True)
class Absorbed:
    """A scrubbed text a kept question absorbed: `near`, the first entry of a `normalise`d text
    `same_question` merged (count 1), or `exact`, entries repeating the normalised text of the
    kept entry or of a near one, as `SampleResult` counts them; the first at `line`."""

    text: str
    how: str
    count: int
    line: int


@dataclass(frozen=True)
class Cluster:
    """A kept question (its scrubbed text, line and slice) and the texts it absorbed, for a
    person to check. `fate`: `sampled`, `available` (not drawn), `in the set` (it duplicates
    a question of the labelled set) or `unknown` (no slice)."""

    text: str
    line: int
    slice: str
    fate: str
    absorbed: tuple[Absorbed, ...]

    @property
    def size(self) -> int:
        return 1 + sum(a.count for a in self.absorbed)

    @property
    def near(self) -> int:
        return sum(a.count for a in self.absorbed if a.how == "near")

    @property
    def exact(self) -> int:
        return sum(a.count for a in self.absorbed if a.how == "exact")

    def row(self) -> dict[str, Any]:
        """The cluster as one JSON object (scrubbed texts only)."""
        return {
            "kept": self.text,
            "line": self.line,
            "slice": self.slice,
            "fate": self.fate,
            "exact": self.exact,
            "near": self.near,
            "absorbed": [
                {"text": a.text, "how": a.how, "count": a.count, "line": a.line}
                for a in self.absorbed
            ],
        }


@dataclass(frozen=True)
class SampleResult:
    """What `draw_sample` did. Counts follow its steps:
    `entries_in` -> `after_since` -> minus `exact_duplicates`, `near_duplicates` and
    `already_in_set` -> per slice `available`. `unknown` counts entries after `since` (traffic),
    `unknown_available` those left after dedupe and exclusion; neither is drawn. `shares` are
    the traffic shares over the known slices."""

    source: str
    since: datetime | None
    seed: int
    rows: tuple[SampledQuestion, ...]
    entries_in: int
    after_since: int
    exact_duplicates: int
    near_duplicates: int
    already_in_set: int
    slices: Mapping[str, SliceCount]
    unknown: int
    unknown_available: int
    shares: Mapping[str, float]
    #: every kept question that absorbed another entry, largest first (`write_clusters`)
    clusters: tuple[Cluster, ...] = ()
    #: where the slices came from: the rules file's name, or None (the log's slice column)
    rules: str | None = None


def _targets(target: int | Mapping[str, int], known: Sequence[str]) -> dict[str, int]:
    if isinstance(target, Mapping):
        missing = [s for s in known if s not in target]
        if missing:
            raise UserError(f"no target for slice(s) {', '.join(missing)}; give one per slice")
        targets = {s: target[s] for s in known}
    else:
        targets = dict.fromkeys(known, target)
    for s, t in targets.items():
        if isinstance(t, bool) or not isinstance(t, int) or t < 0:
            raise UserError(f"target for {s} must be a whole number >= 0, got {t!r}")
    return targets


def draw_sample(
    entries: Sequence[LogEntry],
    scrub: Scrub,
    *,
    existing: Iterable[str] = (),
    since: date | datetime | str | None = None,
    target: int | Mapping[str, int] = DEFAULT_TARGET,
    seed: int = 0,
    classifier: SliceClassifier | None = None,
    slices: Sequence[str] | None = None,
    source: str = "log",
) -> SampleResult:
    """`labels sample`'s steps on entries read by `read_log`, each counted in `SampleResult`:
    the entries at or after `since` (`parse_when`: a date is midnight UTC); their slices (an
    entry's own, from the log's slice column, `UNKNOWN` when empty, else the classifier's;
    `UNKNOWN` is counted, never drawn); traffic shares over the known slices, before dedupe;
    exact duplicates (same `normalise`d text) and near-duplicates (`near_duplicates`) out, the
    earliest entry (timestamp, then line) kept; a cluster any of whose texts is in `existing`
    (the labelled set's texts, scrubbed here too, so like is compared with like) out; then up
    to `target` per slice without replacement, one numpy Generator per slice seeded by (seed,
    CRC-32 of the slice name), so a slice's draw depends on nothing else. `slices`: the known
    slices, in report order (default: the classifier's). Rows come out by slice, then time."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UserError(f"seed must be a whole number >= 0, got {seed!r}")
    classifier = classifier or load_classifier()
    known = tuple(slices) if slices is not None else classifier.slices
    targets = _targets(target, known)
    start = None if since is None else parse_when(since)
    pool = list(entries)
    if start is not None:
        if any(e.ts is None for e in pool):
            raise UserError(f"{source}: --since needs timestamps; name the field with --ts-field")
        pool = [e for e in pool if e.ts >= start]  # type: ignore[operator]
    if entries and not pool:
        raise UserError(
            f"{source}: no entry is on or after {start:%Y-%m-%d}; choose an earlier --since"
        )
    labels = [e.slice if e.slice is not None else classifier.classify(e.text) for e in pool]
    shares = traffic_shares(labels, known) if pool else {}

    order = sorted(
        range(len(pool)), key=lambda i: (pool[i].ts is not None, pool[i].ts, pool[i].line)
    )
    first_of: dict[str, int] = {}
    for i in order:
        first_of.setdefault(normalise(pool[i].text), i)
    unique = [i for i in order if first_of[normalise(pool[i].text)] == i]
    keys = [near_key(pool[i].text, mark=True) for i in unique]
    dup_of = near_duplicates(keys)
    kept = [i for i, d in zip(unique, dup_of, strict=True) if d is None]
    existing = list(existing)
    if getattr(scrub, "many", None) is not None:
        scrub.many(existing)  # type: ignore[attr-defined]
    existing_keys = sorted(
        {near_key(t, mark=True) for t in (scrub(x) for x in existing) if t.strip()}
    )
    # a cluster is in the set when any of its texts is: its kept text may reach a labelled
    # question only through another member
    hit = {
        n if d is None else d
        for n, (d, h) in enumerate(zip(dup_of, matches_any(keys, existing_keys), strict=True))
        if h
    }
    in_set = [n in hit for n, d in enumerate(dup_of) if d is None]
    fresh = [i for i, h in zip(kept, in_set, strict=True) if not h]

    rows, counts, drawn = [], {}, set()
    for s in known:
        candidates = [i for i in fresh if labels[i] == s]
        n = min(targets[s], len(candidates))
        rng = np.random.default_rng([seed, zlib.crc32(s.encode("utf-8"))])
        chosen = sorted(rng.choice(len(candidates), size=n, replace=False)) if n else []
        for c in chosen:
            e = pool[candidates[c]]
            drawn.add(candidates[c])
            rows.append(SampledQuestion(question_id(e.text), e.text, s, e.ts, e.line))
        counts[s] = SliceCount(targets[s], len(candidates), n, labels.count(s))
    root = {u: unique[d] if d is not None else u for u, d in zip(unique, dup_of, strict=True)}
    fate = {i: "in the set" for i, hit in zip(kept, in_set, strict=True) if hit}
    fate |= {
        i: "sampled" if i in drawn else UNKNOWN if labels[i] == UNKNOWN else "available"
        for i in fresh
    }
    clusters = _clusters(pool, order, first_of, root, labels, fate)
    return SampleResult(
        source=source,
        since=start,
        seed=seed,
        rows=tuple(rows),
        entries_in=len(entries),
        after_since=len(pool),
        exact_duplicates=len(pool) - len(unique),
        near_duplicates=len(unique) - len(kept),
        already_in_set=len(kept) - len(fresh),
        slices=counts,
        unknown=labels.count(UNKNOWN),
        unknown_available=sum(labels[i] == UNKNOWN for i in fresh),
        shares=shares,
        clusters=clusters,
        rules=classifier.source if not pool or any(e.slice is None for e in pool) else None,
    )


def _clusters(
    pool: Sequence[LogEntry],
    order: Sequence[int],
    first_of: Mapping[str, int],
    root: Mapping[int, int],
    labels: Sequence[str],
    fate: Mapping[int, str],
) -> tuple[Cluster, ...]:
    """Each kept entry that absorbed others, with the texts it absorbed (`Absorbed`, in time
    order)."""
    absorbed: dict[int, dict[tuple[str, str], list[int]]] = {}
    for i in order:
        first = first_of[normalise(pool[i].text)]
        kept = root[first]
        if i == kept:
            continue
        how = "near" if i == first else "exact"
        seen = absorbed.setdefault(kept, {}).setdefault((pool[i].text, how), [0, pool[i].line])
        seen[0] += 1
    out = [
        Cluster(
            pool[k].text,
            pool[k].line,
            labels[k],
            fate[k],
            tuple(Absorbed(text, how, n, line) for (text, how), (n, line) in texts.items()),
        )
        for k, texts in absorbed.items()
    ]
    return tuple(sorted(out, key=lambda c: (-c.size, c.line)))


def write_clusters(result: SampleResult, path: str | Path) -> Path:
    """The duplicate clusters as JSON Lines at `path`, one kept question a line, largest first
    (`Cluster.row`: scrubbed texts only)."""
    path = Path(path)
    path.write_text(
        "".join(json.dumps(c.row(), ensure_ascii=False) + "\n" for c in result.clusters),
        encoding="utf-8",
    )
    return path


def clusters_path(out: str | Path) -> Path:
    """Where `labels sample` writes the clusters of a sample written to `out`: beside it,
    `<stem>.clusters.jsonl`."""
    out = Path(out)
    return out.with_name(f"{out.stem}.clusters.jsonl")


def sample_log(
    path: str | Path,
    scrub: Scrub,
    *,
    text_field: str = "text",
    ts_field: str | None = "ts",
    slice_field: str | None = None,
    existing: Iterable[str] = (),
    since: date | datetime | str | None = None,
    target: int | Mapping[str, int] = DEFAULT_TARGET,
    seed: int = 0,
    classifier: SliceClassifier | None = None,
) -> SampleResult:
    """`read_log` then `draw_sample`: what `ragsweep labels sample LOG` runs."""
    classifier = classifier or load_classifier()
    entries = read_log(
        path,
        scrub,
        text_field=text_field,
        ts_field=ts_field,
        slice_field=slice_field,
        known_slices=classifier.slices,
    )
    return draw_sample(
        entries,
        scrub,
        existing=existing,
        since=since,
        target=target,
        seed=seed,
        classifier=classifier,
        source=str(path),
    )


#: how to extend the rules, named when a slice gets no question because none matched
EXTEND_RULES = (
    "copy the rules (`ragsweep labels sample --write-rules slices.yaml`), add the keywords or "
    "patterns your log uses (identifiers: your insurer's code pattern, e.g. "
    "'\\bABC-[A-Z]{2}-\\d{3}\\b'), then sample with --rules slices.yaml"
)


def zero_reasons(result: SampleResult) -> dict[str, str]:
    """Why each slice with a target got no question: no entry matched (its rules, or the log's
    slice column), or every entry that did was a duplicate or already in the labelled set."""
    out = {}
    for s, c in result.slices.items():
        if c.sampled or not c.target:
            continue
        if c.matched == 0 and result.rules is None:
            out[s] = "no entry of the log's slice column names it"
        elif c.matched == 0:
            out[s] = f"no entry matched its rules in {result.rules}; {EXTEND_RULES}"
        else:
            out[s] = (
                f"all {c.matched} entries the rules put in it were duplicates (of each other or "
                "of another slice's entries) or already in the labelled set; see the clusters"
            )
    return out


def render_summary(result: SampleResult) -> str:
    """A plain-text summary: the counts down the pipeline, then one line per slice, and why a
    slice got no question."""
    since = "" if result.since is None else f" since {result.since:%Y-%m-%d %H:%M} UTC"
    source = "the log's slice column" if result.rules is None else f"the rules in {result.rules}"
    lines = [
        f"{result.source}: {result.entries_in} entries in, {result.after_since} kept{since}",
        f"  exact duplicates removed   {result.exact_duplicates}",
        f"  near-duplicates removed    {result.near_duplicates} "
        f"({NEAR_METHOD} >= {NEAR_THRESHOLD} proposes; texts differing only by typos, articles, "
        "merged words or contact wording around a placeholder are one)",
        f"  already in the labelled set {result.already_in_set}",
        f"  unknown slice              {result.unknown} entries "
        f"({result.unknown_available} after dedupe; not sampled, not in the shares)",
        f"sampled {len(result.rows)} questions, seed {result.seed}, slices by {source}",
        f"  {'slice':<12} {'share':>6} {'available':>9} {'target':>6} {'sampled':>7} {'short':>5}",
    ]
    for s, c in result.slices.items():
        lines.append(
            f"  {s:<12} {result.shares.get(s, 0.0):>6.3f} {c.available:>9} {c.target:>6} "
            f"{c.sampled:>7} {c.shortfall:>5}"
        )
    for s, why in zero_reasons(result).items():
        lines.append(f"  {s}: 0 questions: {why}")
    return "\n".join(lines)


def read_candidates(path: str | Path, products: Sequence[str]) -> pd.DataFrame:
    """The questions `labels sample` wrote (`sampled_questions.jsonl`: id, text, slice, ...) as
    candidate questions for `labels pool` and `labels import`: qid (the sample's id), text,
    slice, product and version. The product is the one corpus product whose name the text holds
    as a word ("my motor policy"), else None; the version is None (a log question asks about the
    wording in force, which the log does not say): the retriever then does not filter by it."""
    file = Path(path)
    if not file.is_file():
        raise UserError(f"{file}: no such file; write it with `ragsweep labels sample`")
    rows = []
    for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            entry = json.loads(line)
            qid, text, slice_ = str(entry["id"]), str(entry["text"]), str(entry["slice"])
        except (ValueError, KeyError, TypeError):
            raise UserError(
                f"{file}:{n}: not a sampled question (id, text, slice); write the file with "
                "`ragsweep labels sample`"
            ) from None
        named = [p for p in products if re.search(rf"\b{re.escape(p)}\b", text, re.I)]
        product = named[0] if len(named) == 1 else None
        rows.append(
            {"qid": qid, "text": text, "slice": slice_, "product": product, "version": None}
        )
    return table(rows, ["qid", "text", "slice", "product", "version"])
