"""`ragsweep labels sample` and `labels scrub-rules`: the query log, scrubbed as it is read, and
the dataset's scrubbing rules (docs/labelling.md, "1. Sample questions from the query log")."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ragsweep.cli.labels.common import AddVerb, data_dir, now, scrubbed_kinds, whole, writable
from ragsweep.data.write import replace_file
from ragsweep.labelling.labelfiles import find_file


def _iso(ts: Any) -> str | None:
    return None if ts is None else ts.isoformat().replace("+00:00", "Z")


def _sample(args: argparse.Namespace) -> int:
    from ragsweep.data import load_dataset
    from ragsweep.data.schema import REAL_SUBSETS
    from ragsweep.labelling import sampling
    from ragsweep.labelling.logreader import parse_when
    from ragsweep.labelling.scrub import Counting, Scrubber
    from ragsweep.labelling.slicerules import load_classifier, write_rules
    from ragsweep.labelling.traffic import write_weights

    if args.write_rules:
        out = write_rules(Path(args.write_rules))
        print(
            f'wrote the built-in slice rules to {out}: edit them (docs/labelling.md, "Slice '
            f'rules"), then `ragsweep labels sample --rules {out}`'
        )
        return 0
    if args.since is not None:
        parse_when(args.since)  # a bad date is refused before the log is read
    data = data_dir(args)
    log = find_file(args.log, data)
    scrubbed = Counting(Scrubber.for_dataset(data))

    existing: list[str] = []
    if not args.no_existing:  # questions people asked: a synthetic one never excludes a log entry
        asked = load_dataset(data).questions
        existing = list(asked.loc[asked["subset"].isin(REAL_SUBSETS), "text"])
    classifier = load_classifier(args.rules) if args.rules else None
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
    out, weights = Path(args.out), Path(args.weights)
    write_weights(  # first: it refuses shares that do not sum to 1 before writing
        weights, result.shares, comment=f"traffic shares of {log.name}: eval.traffic_weights"
    )
    clusters = sampling.write_clusters(result, sampling.clusters_path(out))
    replace_file(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(sampling.render_summary(result))
    print(f"personal data scrubbed before anything else saw it: {scrubbed_kinds(scrubbed.found)}")
    print(f"wrote {len(rows)} scrubbed questions to {out} and the traffic shares to {weights}")
    print(
        f"duplicate clusters in {clusters}: {len(result.clusters)} kept questions with the "
        "scrubbed texts each absorbed (exact or near); check that each asks one question"
    )
    return 0


def _scrub_rules(args: argparse.Namespace) -> int:
    from ragsweep.labelling.labelfiles import write_dataset_files
    from ragsweep.labelling.scrub_rules import RULES_FILE, builtin_rules_text, load_rules

    root = writable(args)
    path = root / RULES_FILE
    if path.exists():
        load_rules(path)  # a broken copy is named here, before anyone scrubs with it
        print(f"{path}: the dataset's scrubbing rules, in use by every command on {root}")
        return 0
    write_dataset_files(root, {RULES_FILE: builtin_rules_text().encode("utf-8")}, [], now())
    bless = ""
    if (root / "MANIFEST.sha256").is_file():
        bless = f", then run `ragsweep data manifest {root}`"
    print(
        f"wrote {path}: a copy of the built-in scrubbing rules. Add your policy and claim "
        "reference shapes (policy_ref, claim_ref) and the codes your questions are about "
        f"(keep){bless}; every command on {root} scrubs with it from now on"
    )
    return 0


def add_sample(verb: AddVerb) -> None:
    s = verb("sample", "a stratified sample of scrubbed questions from a raw query log")
    s.add_argument("log", nargs="?", default="query_log.jsonl", help="JSONL or CSV log")
    s.add_argument("--text-field", default="text")
    s.add_argument("--ts-field", default="ts", help="timestamp field ('' for none)")
    s.add_argument("--slice-field", default=None, help="take slices from this column")
    s.add_argument("--rules", default=None, metavar="YAML", help="slice rules (default built in)")
    s.add_argument(
        "--write-rules",
        default=None,
        metavar="YAML",
        help="write a copy of the built-in slice rules to edit, then stop",
    )
    s.add_argument("--target", type=whole(1), default=80, help="questions per slice (>= 1)")
    s.add_argument("--since", default=None, metavar="DATE", help="only entries from DATE on")
    s.add_argument("--seed", type=whole(0), default=0)
    s.add_argument(
        "--no-existing", action="store_true", help="do not exclude the set's own questions"
    )
    s.add_argument("--out", default="sampled_questions.jsonl", metavar="FILE")
    s.add_argument("--weights", default="traffic_weights.yaml", metavar="FILE")
    s.set_defaults(run=_sample)


def add_scrub_rules(verb: AddVerb) -> None:
    p = verb("scrub-rules", "write DIR/scrub.yaml, the dataset's own scrubbing rules, to adapt")
    p.set_defaults(run=_scrub_rules)
