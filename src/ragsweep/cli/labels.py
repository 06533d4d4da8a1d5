"""`ragsweep labels VERB`: build and keep the labelled set (docs/labelling.md).

    ragsweep labels sample [LOG] [--data DIR] [--target 80] [--since DATE] [--out FILE]
    ragsweep labels agreement A B [--data DIR] [--threshold 0.6]
    ragsweep labels audit MODEL HUMAN [--data DIR]

`--data` is the dataset folder (default: the built-in sample); file arguments that do not exist
as given are looked for inside it (`review/reviewer2.jsonl`, `labels.jsonl`). Each verb is a
function of `ragsweep.labelling`; this module only parses, reads files and prints. A raw log
text is never printed: the log is scrubbed as it is read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from ragsweep.errors import UserError

PROG = "ragsweep labels"


def _data_dir(args: argparse.Namespace) -> Path:
    from ragsweep.data.load import sample_path

    return Path(args.data) if args.data else sample_path()


def _resolve(name: str, data: Path) -> Path:
    """`name` as given, else inside the dataset folder."""
    path = Path(name)
    if path.exists():
        return path
    inside = data / name
    if inside.exists():
        return inside
    raise UserError(f"{name}: no such file here or in the dataset folder {data}; give its path")


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(tmp, path)


# -- sample ---------------------------------------------------------------------------------
def _iso(ts: Any) -> str | None:
    return None if ts is None else ts.isoformat().replace("+00:00", "Z")


def _sample(args: argparse.Namespace) -> int:
    from ragsweep.data import load_dataset
    from ragsweep.labelling import sampling
    from ragsweep.labelling.scrub import scrub

    data = _data_dir(args)
    log = _resolve(args.log, data)
    found: Counter[str] = Counter()

    def scrubbed(text: str) -> str:
        done = scrub(text)
        found.update(done.counts)
        return done.text

    existing = [] if args.no_existing else list(load_dataset(data).questions["text"])
    classifier = sampling.load_classifier(args.rules) if args.rules else None
    result = sampling.sample_log(
        log,
        scrubbed,
        text_field=args.text_field,
        ts_field=args.ts_field or None,
        slice_field=args.slice_field,
        existing=existing,
        since=args.since,
        target=args.target,
        seed=args.seed,
        classifier=classifier,
    )
    rows = [
        {"id": r.id, "text": r.text, "slice": r.slice, "ts": _iso(r.ts), "line": r.line}
        for r in result.rows
    ]
    out = Path(args.out)
    _write_atomic(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    weights = Path(args.weights)
    sampling.write_weights(
        weights, result.shares, comment=f"traffic shares of {log.name}: eval.traffic_weights"
    )
    print(sampling.render_summary(result))
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(found.items(), key=lambda kv: -kv[1]))
    print(f"personal data scrubbed before anything else saw it: {kinds or 'none found'}")
    print(f"wrote {len(rows)} scrubbed questions to {out} and the traffic shares to {weights}")
    return 0


# -- agreement and audit ----------------------------------------------------------------------
def _label_rows(path: Path) -> Any:
    """A label-shaped file (JSONL or CSV with qid, document, section, version, grade)."""
    import pandas as pd

    from ragsweep.labelling.agreement import KEY

    if path.suffix == ".csv":
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        if "clause_version" in frame.columns and "version" in frame.columns:
            frame = frame.drop(columns="version").rename(columns={"clause_version": "version"})
        frame = frame[frame["grade"].str.strip() != ""]
    else:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        frame = pd.DataFrame(rows)
    missing = [c for c in (*KEY, "grade") if c not in frame.columns]
    if missing:
        raise UserError(f"{path}: no column {', '.join(missing)}; a label file needs {KEY} + grade")
    frame = frame.astype({c: str for c in KEY})
    try:
        frame["grade"] = frame["grade"].astype(int)
    except ValueError:
        raise UserError(f"{path}: field grade holds a value that is not 0, 1 or 2") from None
    return frame


def _pair(args: argparse.Namespace) -> tuple[Any, Any, dict[str, str], list[str]]:
    """The two label files (on the questions both cover) and the slice of each question."""
    from ragsweep.data import load_dataset

    data = _data_dir(args)
    ds = load_dataset(data)
    a, b = (_label_rows(_resolve(name, data)) for name in (args.a, args.b))
    common = set(a["qid"]) & set(b["qid"])
    if not common:
        raise UserError(f"{args.a} and {args.b} grade no question in common; nothing to compare")
    a, b = a[a["qid"].isin(common)], b[b["qid"].isin(common)]
    slices = dict(zip(ds.questions["qid"], ds.questions["slice"], strict=True))
    return a, b, slices, list(ds.slices)


def _agreement(args: argparse.Namespace) -> int:
    from ragsweep.labelling.agreement import agreement, render_agreement

    a, b, slices, order = _pair(args)
    report = agreement(
        a, b, slices, args.threshold, order=order, names=(Path(args.a).stem, Path(args.b).stem)
    )
    print(render_agreement(report, max_items=args.show))
    return 0


def _audit(args: argparse.Namespace) -> int:
    from ragsweep.labelling.agreement import audit, render_audit

    model, human, slices, order = _pair(args)
    report = audit(model, human, slices, order=order, names=(Path(args.a).stem, Path(args.b).stem))
    print(render_audit(report))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    def verb(name: str, help: str) -> argparse.ArgumentParser:
        p = verbs.add_parser(name, help=help, description=help)
        p.add_argument("--data", metavar="DIR", help="dataset folder (default: the sample)")
        return p

    s = verb("sample", "a stratified sample of scrubbed questions from a raw query log")
    s.add_argument("log", nargs="?", default="query_log.jsonl", help="JSONL or CSV log")
    s.add_argument("--text-field", default="text")
    s.add_argument("--ts-field", default="ts", help="timestamp field ('' for none)")
    s.add_argument("--slice-field", default=None, help="take slices from this column")
    s.add_argument("--rules", default=None, metavar="YAML", help="slice rules (default built in)")
    s.add_argument("--target", type=int, default=80, help="questions per slice")
    s.add_argument("--since", default=None, metavar="DATE", help="only entries from DATE on")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument(
        "--no-existing", action="store_true", help="do not exclude the set's own questions"
    )
    s.add_argument("--out", default="sampled_questions.jsonl", metavar="FILE")
    s.add_argument("--weights", default="traffic_weights.yaml", metavar="FILE")
    s.set_defaults(run=_sample)

    for name, help, run, a, b in (
        ("agreement", "Cohen's kappa between two graders, per slice", _agreement, "A", "B"),
        ("audit", "model pre-labels against human labels, per slice", _audit, "MODEL", "HUMAN"),
    ):
        p = verb(name, help)
        p.add_argument("a", metavar=a, help="label file (JSONL or a judged sheet CSV)")
        p.add_argument("b", metavar=b, help="label file (JSONL or a judged sheet CSV)")
        if name == "agreement":
            p.add_argument("--threshold", type=float, default=0.6, help="flag kappa below this")
            p.add_argument("--show", type=int, default=10, help="disagreements shown per slice")
        p.set_defaults(run=run)
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
