"""`ragsweep labels VERB`: build and keep the labelled set (docs/labelling.md).

    ragsweep labels sample [LOG] [--data DIR] [--target 80] [--since DATE] [--out FILE]
    ragsweep labels sample --write-rules slices.yaml     (then --rules slices.yaml)
    ragsweep labels scrub-rules --data DIR               (DIR/scrub.yaml: the insurer's rules)
    ragsweep labels pool [--data DIR] [--system NAME=OVERRIDES ...] [--run NAME=FILE] [--out F]
    ragsweep labels pool --sweep NAME | --runs ID ... [--depth K] [--data DIR] [--out F]
    ragsweep labels prelabel SHEET [--chat-url URL --chat-model M [--api-key-env VAR]]
    ragsweep labels import SHEET ... --data DIR --judge NAME [--reason TEXT] [--adjudicated]
    ragsweep labels add-failure --data DIR --text Q --slice S --product P --version V --clause ...
    ragsweep labels check --data DIR [--apply] [--sheet F] [--decided F] [--carry Q:D/S ...]
    ragsweep labels move --to V (QID ... | --from V | --product P | --all) --data DIR [--apply]
        (decisions, both verbs: --carry Q:D/S, --label Q:D/S=G, --retire-question Q,
         --sheet F / --decided F, --retire-unanswered)
    ragsweep labels freeze QID ... | --all-rolling --data DIR
    ragsweep labels rebaseline SWEEP [--uri URI]
    ragsweep labels assign SHEET --judges A,B[,...] --overlap 50 [--seed 0] [--out-dir DIR]
    ragsweep labels agreement A [B] [--data DIR] [--threshold 0.6] [--save]
    ragsweep labels audit MODEL [HUMAN] [--data DIR]
    ragsweep labels export-ls SHEET [--out tasks.json]

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
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

from ragsweep.data.write import replace_file
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


class _Parser(argparse.ArgumentParser):
    """A usage error is one line and exit code 2 (a `UserError`), like every other bad input."""

    def error(self, message: str) -> NoReturn:
        verb = self.prog.removeprefix(PROG).strip()
        raise UserError(f"{verb + ': ' if verb else ''}{message}; see `{self.prog} --help`")


def _whole(low: int) -> Any:
    """An argparse type: a whole number >= `low`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= {low}")
        return value

    return parse


def _kappa(text: str) -> float:
    """An argparse type: a kappa threshold, within kappa's range [-1, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not -1 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a kappa in [-1, 1], e.g. 0.6")
    return value


def scrubbed_kinds(counts: Mapping[str, int]) -> str:
    """`NAME 2, PHONE 1` (most first), or `none found`: kinds and counts, never the values."""
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return kinds or "none found"


# -- sample ---------------------------------------------------------------------------------
def _iso(ts: Any) -> str | None:
    return None if ts is None else ts.isoformat().replace("+00:00", "Z")


def _sample(args: argparse.Namespace) -> int:
    from ragsweep.data import load_dataset
    from ragsweep.labelling import sampling
    from ragsweep.labelling.scrub import Counting, Scrubber

    if args.write_rules:
        out = sampling.write_rules(Path(args.write_rules))
        print(
            f'wrote the built-in slice rules to {out}: edit them (docs/labelling.md, "Slice '
            f'rules"), then `ragsweep labels sample --rules {out}`'
        )
        return 0
    if args.since is not None:
        sampling.parse_when(args.since)  # a bad date is refused before the log is read
    data = _data_dir(args)
    log = _resolve(args.log, data)
    scrubbed = Counting(Scrubber.for_dataset(data))

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
    out, weights = Path(args.out), Path(args.weights)
    sampling.write_weights(  # first: it refuses shares that do not sum to 1 before writing
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


# -- pool and prelabel ------------------------------------------------------------------------
#: the systems `labels pool` pools when none is named: each retriever of the default pipeline
DEFAULT_SYSTEMS = {"bm25": ["retriever=bm25"], "dense": ["retriever=dense"], "hybrid": []}


def _systems(args: argparse.Namespace) -> dict[str, Any]:
    systems: dict[str, Any] = {}
    for spec, is_run in [*((s, False) for s in args.system), *((r, True) for r in args.runs)]:
        name, eq, value = spec.partition("=")
        if not eq or not name:
            flag = "--run NAME=FILE" if is_run else "--system NAME='OVERRIDE ...'"
            raise UserError(f"{spec!r}: write {flag}")
        systems[name] = Path(value) if is_run else value.split()
    return systems or DEFAULT_SYSTEMS


def _candidates(args: argparse.Namespace) -> Any:
    from ragsweep.data import load_dataset
    from ragsweep.labelling.sampling import read_candidates

    ds = load_dataset(_data_dir(args))
    products = sorted({d.product for d in ds.documents if d.product is not None})
    frame = read_candidates(Path(args.candidates), products)
    if args.limit:
        frame = frame.groupby("slice", sort=False).head(args.limit)
    return frame


def _pool(args: argparse.Namespace) -> int:
    from ragsweep.labelling.pool import pool, write_sheet

    if args.sweep is not None or args.run_ids:
        return _pool_sweep(args)
    if args.uri is not None:
        raise UserError("--uri names the store of --sweep/--runs; give one of them, or drop --uri")
    base: Any = [] if args.data is None else Path(args.data)
    questions: Any = None if args.questions == "split" else args.questions
    if questions not in (None, "all"):
        questions = questions.split(",")
    if args.candidates:
        questions = _candidates(args)
    depth = {} if args.depth is None else {"depth": args.depth}
    done = pool(base, _systems(args), questions=questions, **depth)
    out = write_sheet(done, Path(args.out))
    s = done.summary()
    print(
        f"pooled {', '.join(done.systems)} at depth {done.depth}: {int(s['questions'])} "
        f"questions, {int(s['rows'])} (question, clause) rows, {s['mean_pool_size']:.1f} per "
        f"question; {s['unlabelled_share']:.1%} unlabelled, {s['single_system_share']:.1%} "
        f"found by one system only; judging sheet {out}"
    )
    _print_collapsed(done)
    return 0


def _print_collapsed(done: Any) -> None:
    """How many pooled clauses a row of the same text stands for (`Pool.summary`)."""
    collapsed = int(done.summary()["collapsed"])
    if collapsed:
        print(
            f"{collapsed} more clause(s) had the very text of a row's clause for the same "
            "question: graded once in that row (column same_text_clauses), and `labels import` "
            "applies its grade to them"
        )


def _pool_sweep(args: argparse.Namespace) -> int:
    """`labels pool --sweep NAME | --runs ID ...`: the unjudged pairs of logged configurations."""
    from ragsweep.experiment import tracking
    from ragsweep.experiment.pool import pool_sweep
    from ragsweep.labelling.pool import write_sheet

    others = [
        flag
        for flag, given in (
            ("--system", args.system),
            ("--run", args.runs),
            ("--candidates", args.candidates),
            ("--questions", args.questions != "split"),
        )
        if given
    ]
    if others:
        raise UserError(
            f"--sweep/--runs pool logged configurations on their own questions; drop "
            f"{', '.join(others)} (or pool other systems without --sweep/--runs)"
        )
    done = pool_sweep(
        sweep=args.sweep,
        runs=args.run_ids,
        depth=args.depth,
        data=args.data,
        store=tracking.resolve_store(args.uri),
    )
    out = write_sheet(done.pool, Path(args.out)).resolve()
    rows = done.pool.rows
    ks = sorted(set(done.depths.values()))
    k = (
        str(ks[0])
        if len(ks) == 1
        else "each configuration's k ("
        + ", ".join(f"{n} {d}" for n, d in done.depths.items())
        + ")"
    )
    print(
        f"pooled {done.source} at k = {k}: {len(rows)} unjudged (question, clause) pairs in "
        f"{rows['qid'].nunique()} questions, judged ones (any grade, 0 included) left out"
    )
    print(
        "per configuration, unjudged pairs in its top-k (before de-duplication): "
        + ", ".join(f"{n} {c}" for n, c in done.per_system().items())
    )
    per_slice = done.per_slice()
    print("per slice: " + (", ".join(f"{s} {c}" for s, c in per_slice.items()) or "none"))
    _print_collapsed(done.pool)
    print(
        f"judging sheet {out}; fill its grade column, then `ragsweep labels import {out} "
        f"--data {done.dataset.root} --judge NAME` and `ragsweep labels rebaseline {done.sweep}`"
    )
    return 0


def _prelabel(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from ragsweep.data import load_dataset
    from ragsweep.labelling.prelabel import prelabel_sheet
    from ragsweep.labelling.sheetfile import SHEET_COLUMNS, write_sheet_frame

    sheet_path = Path(args.sheet)
    if not sheet_path.is_file():
        raise UserError(f"{sheet_path}: no such judging sheet; write one with `labels pool`")
    dataset = load_dataset(_data_dir(args))
    # CSV or .xlsx, verified, every clause one of the dataset's: the pre-labeller grades them
    sheet = _read_sheet_frame(sheet_path, SHEET_COLUMNS, dataset, known=True)
    chat = None
    if args.chat_url or args.chat_model:
        from ragsweep.labelling.chat import ChatLabeller

        chat = ChatLabeller(
            args.chat_url or "",
            args.chat_model or "",
            api_key_env=args.api_key_env,
            max_concurrency=args.concurrency,
            cache_dir=Path(args.cache_dir),
        )
    at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    filled, summary = prelabel_sheet(sheet, dataset, at=at, chat=chat)
    out = Path(args.out or sheet_path)
    write_sheet_frame(filled, out)  # in the format of its suffix: .xlsx stays .xlsx
    print(summary)
    print(f"pre-labels written to {out} (columns prelabel, prelabel_source)")
    return 0


# -- import, add-failure, check, freeze ------------------------------------------------------
def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _writable(args: argparse.Namespace) -> Path:
    """Verbs that change a dataset need it named: the built-in sample is never edited."""
    if not args.data:
        raise UserError(
            "name the dataset folder to change with --data DIR (the built-in sample is never "
            "edited: copy it first, e.g. `ragsweep data sample --out DIR`)"
        )
    return Path(args.data)


def _as_sheet(path: Path, folder: Path) -> Path:
    """A judged sheet CSV as given; a label JSONL (a reviewer's file) or a Label Studio JSON
    export (one row per annotation, its annotator the judge) as the equivalent sheet."""
    import csv

    if path.suffix not in (".jsonl", ".json"):
        return path
    frame = _label_rows(path)
    twice = frame[frame.duplicated(["qid", "document", "section", "version"], keep=False)]
    if not twice.empty:
        r = twice.iloc[0]
        who = ", ".join(sorted(set(twice["judge"][twice["qid"] == r.qid])))
        raise UserError(
            f"{path}: field 'judge': question {r.qid!r} and clause {r.document}/{r.section}@"
            f"{r.version} are graded more than once ({who}); import one annotator's grades at a "
            "time (export per annotator): a later judge's differing grades go to adjudication"
        )
    sheet = folder / f"{path.stem}.csv"
    with sheet.open("w", encoding="utf-8", newline="") as out:
        w = csv.writer(out)
        w.writerow(["qid", "document", "section", "clause_version", "grade", "judge"])
        for r in frame.itertuples(index=False):
            w.writerow([r.qid, r.document, r.section, r.version, r.grade, r.judge])
    return sheet


def _import(args: argparse.Namespace) -> int:
    from ragsweep.labelling.sheets import CHANGELOG_FILE, import_sheets

    data = _writable(args)
    with tempfile.TemporaryDirectory(prefix="ragsweep-import-") as tmp:
        sheets = [_as_sheet(_resolve(name, data), Path(tmp)) for name in args.sheets]
        extra = _candidates(args) if args.candidates else None
        done = import_sheets(
            data,
            sheets,
            judge=args.judge,
            at=_now(),
            reason=args.reason,
            candidates=extra,
            adjudicated=args.adjudicated,
        )
    print(
        f"imported {len(args.sheets)} sheet(s) into {data / 'labels.jsonl'}: {done.added} "
        f"added, {done.changed} changed, {done.unchanged} unchanged, {done.skipped} rows not "
        f"judged; {len(done.changes)} change(s) in {data / CHANGELOG_FILE}"
    )
    if done.by_rule:
        qid, doc, sec, ver = done.by_rule[0]
        print(
            f"{len(done.by_rule)} grade(s) of 1 or 2 on a clause of another version or product "
            f"than the question asks about (e.g. {qid} {doc}/{sec}@{ver}) imported as 0, as the "
            "relevance rule says (relevance.md)"
        )
    if done.same_text:
        print(
            f"{done.same_text} pair(s) graded through a row's same_text_clauses (the same clause "
            f"text for the same question; {done.same_text_by_rule} of them on another version or "
            "product, so 0 by the relevance rule)"
        )
    if done.confirmed or done.disputes:
        print(
            f"a further judge on pairs already labelled: {done.confirmed} confirmed, "
            f"{len(done.disputes)} disputed (labels kept, every grade in the changelog)"
        )
    if done.disputes:
        from ragsweep.data import load_dataset
        from ragsweep.labelling.adjudicate import write_adjudication

        out = write_adjudication(load_dataset(data), done.disputes, Path(args.adjudicate))
        print(
            f"adjudication sheet {out}: fill its grade column, then `ragsweep labels import "
            f"{out} --data {data} --adjudicated --judge NAME`"
        )
    if args.candidates:
        print(
            f"{done.questions_added} sampled question(s) joined the set as rolling questions; "
            f"{len(done.not_added)} graded without a relevant clause were left out"
        )
    if done.scrubbed:
        print(
            "personal data scrubbed from the joining texts and the notes: "
            + scrubbed_kinds(done.scrubbed)
        )
    return 0


def _scrub_rules(args: argparse.Namespace) -> int:
    from ragsweep.labelling.scrub import RULES_FILE, builtin_rules_text, load_rules
    from ragsweep.labelling.sheets import write_dataset_files

    root = _writable(args)
    path = root / RULES_FILE
    if path.exists():
        load_rules(path)  # a broken copy is named here, before anyone scrubs with it
        print(f"{path}: the dataset's scrubbing rules, in use by every command on {root}")
        return 0
    write_dataset_files(root, {RULES_FILE: builtin_rules_text().encode("utf-8")}, [], _now())
    bless = ""
    if (root / "MANIFEST.sha256").is_file():
        bless = f", then run `ragsweep data manifest {root}`"
    print(
        f"wrote {path}: a copy of the built-in scrubbing rules. Add your policy and claim "
        "reference shapes (policy_ref, claim_ref) and the codes your questions are about "
        f"(keep){bless}; every command on {root} scrubs with it from now on"
    )
    return 0


def _add_failure(args: argparse.Namespace) -> int:
    from ragsweep.labelling.sheets import add_failure

    clauses = []
    for spec in args.clause:
        clause, _, grade = spec.rpartition("=")
        document, _, section = clause.partition("/")
        if not (document and section and grade.isdigit()):
            raise UserError(f"--clause {spec!r}: write DOCUMENT/SECTION=GRADE, e.g. home/4.4=2")
        clauses.append((document, section, int(grade)))
    done = add_failure(
        _writable(args),
        text=args.text,
        slice=args.slice,
        product=args.product,
        version=args.version,
        clauses=clauses,
        at=_now(),
        who=args.who,
        reason=args.reason,
    )
    print(
        f"added the production failure as core question {done.qid} with {len(clauses)} "
        f"label(s); personal data scrubbed from its text: {scrubbed_kinds(done.scrubbed)}"
    )
    return 0


def _check(args: argparse.Namespace) -> int:
    return _upkeep(args, None)


def _move(args: argparse.Namespace) -> int:
    from ragsweep.labelling.sheets import read_rows

    data = Path(args.data) if args.data else _data_dir(args)
    if not (args.qids or args.all or args.from_version or args.product):
        raise UserError(
            "labels move: name the questions to move: QID ..., or --from VERSION and/or "
            "--product PRODUCT, or --all"
        )
    if args.qids and (args.all or args.from_version or args.product):
        raise UserError("labels move: give QIDs, or --from/--product/--all, not both")
    rows = read_rows(data, "questions.jsonl")
    chosen = args.qids or [
        r["qid"]
        for r in rows
        if r["version"] != args.to
        and args.from_version in (None, r["version"])
        and args.product in (None, r["product"])
    ]
    if not chosen:
        print(f"no question to move to version {args.to}: none matches")
        return 0
    print(f"moving {len(chosen)} question(s) to version {args.to}")
    return _upkeep(args, dict.fromkeys(chosen, args.to))


def _upkeep(args: argparse.Namespace, move: dict[str, str] | None) -> int:
    """`labels check` and `labels move`: what the check finds (with the questions in `move`
    asking about their new version), and with --apply, written with the person's decisions."""
    from ragsweep.labelling.sheetfile import read_sheet, write_sheet_frame
    from ragsweep.labelling.upkeep import (
        apply_check,
        check_labels,
        decided_labels,
        decision_sheet,
        unanswered_fix,
    )

    confirm = [_carry_spec(spec) for spec in args.carry]
    label = [_label_spec(spec) for spec in args.label]
    chosen = confirm or args.retire_question or label or args.decided or args.retire_unanswered
    if chosen and not args.apply:
        raise UserError(
            "--carry, --label, --decided, --retire-question and --retire-unanswered are "
            "decisions to apply; add --apply"
        )
    data = Path(args.data) if args.data else _data_dir(args)
    if args.apply:  # a stale manifest refuses --apply before the long listing, not after it
        from ragsweep.data.manifest import check_manifest

        check_manifest(_writable(args))
    found = check_labels(data, move)
    if args.decided:
        label += decided_labels(data, found, read_sheet(args.decided))
    for v in found.vanished:
        fate = f"moves to section {v.moved_to}" if v.moved_to else "is removed"
        print(f"vanished: {v.qid} {v.document}/{v.section}@{v.version} (grade {v.grade}) {fate}")
    for c in found.carries:
        # only identical texts read 100: 99.5 is not rounded up to "the same"
        alike = "identical" if c.ratio >= 100 else f"{min(c.ratio, 99.9):.1f}% alike, figures equal"
        where = f"{c.section} -> {c.to_section} (renumbered)" if c.to_section else c.section
        print(
            f"carry: {c.qid} {c.document}/{where} grade {c.grade} from {c.from_version} to "
            f"{c.to_version} (text {alike})"
        )
    for r in found.retired:
        print(
            f"retire: {r.qid} {r.document}/{r.section}@{r.version} grade {r.grade} -> 0: the "
            f"question asks about {r.asked}"
        )
    for b in found.blocked:
        print(
            f"not carried: {b.qid} {b.document}/{b.section} {b.from_version} -> {b.to_version}: "
            f"{b.reason}"
        )
    decided = {c[0] for c in confirm} | {c[0] for c in label if c[3] >= 1}
    decided |= set(args.retire_question)
    if args.retire_unanswered:
        decided |= {u.qid for u in found.unanswered}
    for u in found.unanswered:
        if u.qid not in decided:
            print(f"unanswered: {unanswered_fix(u)}")
    settled = sum(u.qid in decided for u in found.unanswered)
    print(
        f"{len(found.vanished)} vanished, {len(found.carries)} to carry, {len(found.blocked)} "
        f"not carried, {len(found.retired)} to retire, {len(found.unanswered)} question(s) "
        "left without a relevant label"
        + (f" ({settled} decided on the command line)" if settled else "")
        + ("" if args.apply or found.clean else "; --apply writes them")
    )
    if args.sheet:
        rows = decision_sheet(data, found)
        write_sheet_frame(rows, args.sheet)
        print(
            f"{len(rows)} label(s) left for a person, with the clause each could go to: "
            f"{args.sheet}; fill its grade column, then add --apply --decided {args.sheet}"
        )
    if args.apply and (not found.clean or chosen or found.unanswered):
        changes = apply_check(
            _writable(args),
            found,
            at=_now(),
            who=args.who,
            confirm=confirm,
            retire_questions=args.retire_question,
            label=label,
            retire_unanswered=args.retire_unanswered,
        )
        print(f"applied: {len(changes)} change(s) recorded in the label changelog")
    return 0


def _upkeep_arguments(p: argparse.ArgumentParser) -> None:
    """The options `labels check` and `labels move` share: --apply and the person's decisions."""
    p.add_argument("--apply", action="store_true", help="write them (default: a dry run)")
    p.add_argument(
        "--carry",
        action="append",
        default=[],
        metavar="QID:DOC/SECTION",
        help="with --apply: carry this 'not carried' label all the same, having read the change "
        "(repeatable)",
    )
    p.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="QID:DOC/SECTION=GRADE",
        help="with --apply: grade a clause of the version the question asks about, e.g. a "
        "new clause that answers it (repeatable)",
    )
    p.add_argument(
        "--retire-question",
        action="append",
        default=[],
        metavar="QID",
        help="with --apply: take this question and its labels out of the set, e.g. when the "
        "new version deleted its answer (repeatable)",
    )
    p.add_argument(
        "--sheet",
        default=None,
        metavar="FILE",
        help="write the labels left for a person as a judging sheet (.csv or .xlsx): the "
        "clause each could go to, the old grade as prelabel, why it was not carried",
    )
    p.add_argument(
        "--decided",
        default=None,
        metavar="FILE",
        help="with --apply: the --sheet filled by a person; its grades are applied",
    )
    p.add_argument(
        "--retire-unanswered",
        action="store_true",
        help="with --apply: retire every question the decisions leave without a relevant label",
    )
    p.add_argument("--who", default=os.environ.get("USER", "unknown"))


def _label_spec(spec: str) -> tuple[str, str, str, int]:
    """`QID:DOCUMENT/SECTION=GRADE` as (qid, document, section, grade)."""
    clause, _, grade = spec.rpartition("=")
    qid, document, section = _carry_spec(clause, flag="--label") if clause else ("", "", "")
    if not grade.isdigit():
        raise UserError(f"--label {spec!r}: write QID:DOCUMENT/SECTION=GRADE, e.g. q05:home/4.9=2")
    return qid, document, section, int(grade)


def _carry_spec(spec: str, flag: str = "--carry") -> tuple[str, str, str]:
    """`QID:DOCUMENT/SECTION` (a 'not carried' line's label) as (qid, document, section)."""
    qid, _, clause = spec.partition(":")
    document, _, section = clause.partition("/")
    if not (qid and document and section):
        what = (
            "=GRADE, e.g. q05:home/4.9=2"
            if flag == "--label"
            else (", the label of a 'not carried' line, e.g. q05:home/4.1")
        )
        raise UserError(f"{flag} {spec!r}: write QID:DOCUMENT/SECTION{what}")
    return qid, document, section


def _freeze(args: argparse.Namespace) -> int:
    from ragsweep.labelling.upkeep import freeze

    if bool(args.qids) == args.all_rolling:
        raise UserError("name the questions to freeze, or --all-rolling (not both)")
    which: Any = "all-rolling" if args.all_rolling else args.qids
    done = freeze(_writable(args), which, at=_now(), who=args.who)
    for qid in dict.fromkeys(args.qids):
        if qid not in done:  # known (an unknown qid is refused), so in the core already
            print(f"{qid} is already in the core")
    if done:
        print(f"froze {len(done)} question(s) into the core set: {', '.join(done)}")
    elif args.all_rolling:
        print("nothing to freeze: the set has no rolling question")
    else:
        print("nothing to freeze: every question named is in the core already")
    return 0


def _rebaseline(args: argparse.Namespace) -> int:
    from ragsweep.experiment.rebaseline import print_rebaseline, rebaseline

    print_rebaseline(rebaseline(args.sweep, uri=args.uri))
    return 0


# -- assign and Label Studio ------------------------------------------------------------------
def _read_sheet_frame(
    path: Path, needs: tuple[str, ...], dataset: Any = None, known: bool = False
) -> Any:
    """A judging sheet (`sheetfile.read_sheet`: CSV or .xlsx; with `dataset`, each row's clause
    verified, and with `known` each one a clause of its corpus) as text columns, with the
    columns `needs` and at least one row; a grade or prelabel cell that is not 0, 1, 2 or empty
    is refused. Problems are one line."""
    from ragsweep.labelling.sheetfile import OPTIONAL_COLUMNS, read_sheet, require_clauses

    if not path.is_file():
        raise UserError(f"{path}: no such judging sheet; write one with `labels pool`")
    sheet = read_sheet(path, dataset=dataset)
    sheet.require([c for c in needs if c not in OPTIONAL_COLUMNS])
    frame = sheet.rows
    if frame.empty:
        raise UserError(
            f"{path}: has a header but no row; write a judging sheet with `labels pool`"
        )
    for column in ("grade", "prelabel"):
        if column in frame.columns:
            bad = ~frame[column].isin(["", "0", "1", "2"])
            if bad.any():
                i = int(bad.to_numpy().nonzero()[0][0])
                sheet.fail(
                    f"{frame[column].iloc[i]!r} is not a grade; write 0, 1 or 2, or leave it "
                    "empty (not judged)",
                    i,
                    column,
                )
    if known:
        require_clauses(sheet, dataset)
    return frame


def _assign(args: argparse.Namespace) -> int:
    from ragsweep.labelling.assign import assign
    from ragsweep.labelling.sheetfile import SHEET_COLUMNS, write_sheet_frame

    sheet = Path(args.sheet)
    rows = _read_sheet_frame(sheet, SHEET_COLUMNS)
    done = assign(rows, args.judges.split(","), args.overlap, args.seed)
    out = Path(args.out_dir)
    n_rows = rows["qid"].isin(done.overlap).sum()
    per_slice = ", ".join(f"{s} {n}" for s, n in done.overlap_by_slice.items())
    print(
        f"{rows['qid'].nunique()} questions ({len(rows)} rows) of {sheet} assigned to "
        f"{len(done.judges)} judges, seed {args.seed}"
    )
    print(
        f"overlap, graded by every judge: {len(done.overlap)} questions ({n_rows} rows), by "
        f"slice: {per_slice}"
    )
    for judge in done.judges:
        path = write_sheet_frame(done.sheets[judge], out / f"{judge}.csv")
        print(
            f"{judge}: {len(done.overlap)} overlap + {len(done.own[judge])} own questions, "
            f"{len(done.sheets[judge])} rows -> {path}"
        )
    return 0


def _export_ls(args: argparse.Namespace) -> int:
    from ragsweep.labelling.graded import LS_CHOICES

    fields = ("qid", "question", "slice", "document", "section", "clause_version", "clause_text")
    rows = _read_sheet_frame(Path(args.sheet), fields)
    tasks = [{"data": {f: r[f] for f in fields}} for r in rows.to_dict("records")]
    out = Path(args.out)
    replace_file(out, json.dumps(tasks, indent=1, ensure_ascii=False) + "\n")
    config = out.with_suffix(".xml")
    replace_file(
        config,
        f"""<View>
  <Header value="$qid ($slice): $question"/>
  <Text name="clause" value="$document $section ($clause_version): $clause_text"/>
  <Choices name="{LS_CHOICES}" toName="clause" choice="single" showInline="true" required="true">
    <Choice value="2" hint="answers the question fully"/>
    <Choice value="1" hint="supports or partly answers it"/>
    <Choice value="0" hint="not relevant"/>
  </Choices>
</View>
""",
    )
    print(
        f"{len(tasks)} Label Studio tasks -> {out}; labelling config -> {config} (paste it in "
        "the project's Labeling Interface, import the tasks, then export the project as JSON "
        "and give that file to `labels agreement` or `labels import`)"
    )
    return 0


# -- agreement and audit ----------------------------------------------------------------------
def _label_rows(path: Path, column: str = "grade") -> Any:
    """The graded rows of a label file, a sheet or a Label Studio export (`read_graded`)."""
    from ragsweep.labelling.graded import read_graded

    return read_graded(path, column)


def _grader(frame: Any, path: Path) -> str:
    """A grader's name: the one judge its rows name, else the file's stem."""
    judges = {j for j in frame["judge"] if j}
    return judges.pop() if len(judges) == 1 else path.stem


class _Pair(NamedTuple):
    """Two graded files read for `agreement`/`audit` (see `_pair`)."""

    dataset: Any
    paths: list[Path]
    a: Any
    b: Any
    names: tuple[str, str]
    slices: dict[str, str]
    order: list[str]


def _pair(args: argparse.Namespace, columns: tuple[str, str] = ("grade", "grade")) -> _Pair:
    """The dataset, the two graded files (on the questions both cover), their names, the slice
    of each question (the set's, else the sheets' slice cell: sampled candidates) and the
    slice order."""
    from ragsweep.data import load_dataset

    data = _data_dir(args)
    ds = load_dataset(data)
    paths = [_resolve(name, data) for name in (args.a, args.b or args.a)]
    a, b = (_label_rows(p, c) for p, c in zip(paths, columns, strict=True))
    names = (_grader(a, paths[0]), _grader(b, paths[1]))
    if columns[0] == "prelabel":  # a sheet's model grades, whoever judged the sheet
        names = ("prelabel", names[1])
    if args.b is None and columns == ("grade", "grade"):  # one file, two judges in it
        judges = sorted({j for j in a["judge"] if j})
        if len(judges) != 2:
            raise UserError(
                f"{paths[0]}: field 'judge': names {len(judges)} judge(s) "
                f"({', '.join(judges) or 'none'}); give two files, or one whose grades come "
                "from exactly two judges"
            )
        names = (judges[0], judges[1])
        a, b = a[a["judge"] == judges[0]], b[b["judge"] == judges[1]]
    elif args.b is None:
        names = columns
    elif names[0] == names[1]:
        names = (f"{names[0]} ({paths[0].name})", f"{names[1]} ({paths[1].name})")
    common = set(a["qid"]) & set(b["qid"])
    if not common:
        raise UserError(
            f"{paths[0]} and {paths[1]}: field 'qid': they grade no question in common; give "
            "two files that grade the same questions"
        )
    a, b = a[a["qid"].isin(common)], b[b["qid"].isin(common)]
    slices = {
        q: s for frame in (a, b) for q, s in zip(frame["qid"], frame["slice"], strict=True) if s
    }
    slices.update(zip(ds.questions["qid"], ds.questions["slice"], strict=True))
    return _Pair(ds, paths, a, b, names, slices, list(ds.slices))


def _agreement(args: argparse.Namespace) -> int:
    from ragsweep.labelling.agreement import agreement, agreement_record, render_agreement
    from ragsweep.labelling.sheets import write_dataset_files

    p = _pair(args)
    report = agreement(p.a, p.b, p.slices, args.threshold, order=p.order, names=p.names)
    print(render_agreement(report, max_items=args.show))
    if args.save:
        root = _writable(args)
        record = agreement_record(
            report,
            files=[f.name for f in p.paths],
            at=_now()[:10],
            labels_hash=p.dataset.labels_hash,
        )
        rel = "review/agreement.json"
        text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
        write_dataset_files(root, {rel: text.encode("utf-8")}, [], _now())
        print(f"saved to {root / rel}: runs scored on this dataset carry it (ragsweep.kappa)")
    return 0


def _audit(args: argparse.Namespace) -> int:
    from ragsweep.labelling.agreement import audit, render_audit

    model_column = "prelabel" if args.b is None or _is_sheet(args) else "grade"
    p = _pair(args, (model_column, "grade"))
    report = audit(p.a, p.b, p.slices, order=p.order, names=p.names)
    print(render_audit(report))
    return 0


def _is_sheet(args: argparse.Namespace) -> bool:
    """MODEL is a sheet with a prelabel column (its model grades), not a label file."""
    from ragsweep.labelling.sheetfile import read_sheet

    path = _resolve(args.a, _data_dir(args))
    if path.suffix in (".json", ".jsonl"):
        return False
    return "prelabel" in read_sheet(path).rows.columns


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description=__doc__.split("\n\n")[0])
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
    s.add_argument(
        "--write-rules",
        default=None,
        metavar="YAML",
        help="write a copy of the built-in slice rules to edit, then stop",
    )
    s.add_argument("--target", type=_whole(1), default=80, help="questions per slice (>= 1)")
    s.add_argument("--since", default=None, metavar="DATE", help="only entries from DATE on")
    s.add_argument("--seed", type=_whole(0), default=0)
    s.add_argument(
        "--no-existing", action="store_true", help="do not exclude the set's own questions"
    )
    s.add_argument("--out", default="sampled_questions.jsonl", metavar="FILE")
    s.add_argument("--weights", default="traffic_weights.yaml", metavar="FILE")
    s.set_defaults(run=_sample)

    p = verb("pool", "a judging sheet: the union of several systems' top passages per question")
    p.add_argument(
        "--system",
        action="append",
        default=[],
        metavar="NAME=OVERRIDES",
        help="a retrieval configuration, e.g. bm25='retriever=bm25' (repeatable; default: "
        "bm25, dense and hybrid)",
    )
    p.add_argument(
        "--run",
        dest="runs",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="a TREC run of clause ids",
    )
    p.add_argument(
        "--sweep",
        default=None,
        metavar="NAME",
        help="pool a logged sweep: the unjudged pairs in its configurations' top-k",
    )
    p.add_argument(
        "--runs",
        dest="run_ids",
        nargs="+",
        default=[],
        metavar="ID",
        help="pool these logged configuration runs (instead of --sweep)",
    )
    p.add_argument("--uri", default=None, help="with --sweep/--runs: tracking store")
    p.add_argument(
        "--depth",
        type=_whole(1),
        default=None,
        help="passages pooled per system (default 50; with --sweep/--runs each run's "
        "eval.k_prompt, the deciding k)",
    )
    p.add_argument(
        "--questions", default="split", help="split (the configured split), all, or QID,QID,..."
    )
    p.add_argument(
        "--out",
        default="judging_sheet.csv",
        metavar="FILE",
        help="the judging sheet: .csv, or .xlsx for a workbook of text cells",
    )
    p.add_argument(
        "--candidates",
        default=None,
        metavar="FILE",
        help="pool the questions `labels sample` wrote instead of the set's",
    )
    p.add_argument(
        "--limit", type=_whole(0), default=0, help="with --candidates: at most N per slice (0: all)"
    )
    p.set_defaults(run=_pool)

    p = verb("prelabel", "fill a judging sheet's pre-label columns (offline, or a chat model)")
    p.add_argument("sheet", metavar="SHEET")
    p.add_argument("--chat-url", default=None, help="OpenAI-compatible base URL (.../v1)")
    p.add_argument("--chat-model", default=None, help="the model name the server knows")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="env variable with the key")
    p.add_argument("--concurrency", type=_whole(1), default=4, help="requests in flight at most")
    p.add_argument("--cache-dir", default=".ragsweep_cache/chat", help="response cache")
    p.add_argument("--out", default=None, metavar="FILE", help="default: rewrite SHEET")
    p.set_defaults(run=_prelabel)

    p = verb("import", "merge judged sheets (or a reviewer's label file) into labels.jsonl")
    p.add_argument("sheets", nargs="+", metavar="SHEET")
    p.add_argument("--judge", default=None, help="who judged rows whose judge cell is empty")
    p.add_argument("--reason", default="judged sheet", help="recorded in the changelog")
    p.add_argument(
        "--candidates",
        default=None,
        metavar="FILE",
        help="sampled questions the sheet grades: those with a relevant clause join the set",
    )
    p.add_argument("--limit", type=_whole(0), default=0, help=argparse.SUPPRESS)
    p.add_argument(
        "--adjudicated",
        action="store_true",
        help="the sheets hold final decisions on disputed pairs: their grades replace the labels'",
    )
    p.add_argument(
        "--adjudicate",
        default="adjudicate.csv",
        metavar="FILE",
        help="where the pairs another judge graded otherwise go (default adjudicate.csv)",
    )
    p.set_defaults(run=_import)

    p = verb("scrub-rules", "write DIR/scrub.yaml, the dataset's own scrubbing rules, to adapt")
    p.set_defaults(run=_scrub_rules)

    p = verb("add-failure", "a confirmed production failure as a permanent core question")
    p.add_argument("--text", required=True, help="the question as asked (scrubbed)")
    p.add_argument("--slice", required=True)
    p.add_argument("--product", required=True)
    p.add_argument("--version", required=True)
    p.add_argument(
        "--clause",
        action="append",
        required=True,
        metavar="DOC/SECTION=GRADE",
        help="a graded clause of the asked version (repeatable)",
    )
    p.add_argument("--who", default=os.environ.get("USER", "unknown"))
    p.add_argument("--reason", default="confirmed production failure")
    p.set_defaults(run=_add_failure)

    for name, help in (
        ("check", "labels whose clause vanished, and labels to carry to a new version"),
        ("move", "move questions to a new wording version, carrying and retiring their labels"),
    ):
        p = verb(name, help)
        _upkeep_arguments(p)
        if name == "move":
            p.add_argument("qids", nargs="*", metavar="QID", help="the questions to move")
            p.add_argument("--to", required=True, metavar="VERSION", help="the new version")
            p.add_argument(
                "--from",
                dest="from_version",
                default=None,
                metavar="VERSION",
                help="move the questions asking about this version",
            )
            p.add_argument("--product", default=None, help="move this product's questions")
            p.add_argument("--all", action="store_true", help="move every question")
        p.set_defaults(run=_move if name == "move" else _check)

    p = verb("freeze", "promote rolling questions into the frozen core")
    p.add_argument("qids", nargs="*", metavar="QID")
    p.add_argument("--all-rolling", action="store_true")
    p.add_argument("--who", default=os.environ.get("USER", "unknown"))
    p.set_defaults(run=_freeze)

    p = verbs.add_parser(
        "rebaseline",
        help="score a sweep's baseline again on the current labels, and log it",
        description="score a sweep's baseline again on the current labels, and log it",
    )
    p.add_argument("sweep", metavar="SWEEP", help="sweep name or parent run id")
    p.add_argument(
        "--uri",
        default=None,
        help="tracking store (default: $MLFLOW_TRACKING_URI if set, else "
        "sqlite:///<cwd>/mlruns/mlflow.db, where a sweep logs by default)",
    )
    p.set_defaults(run=_rebaseline)

    p = verb("assign", "split a judging sheet between judges, with an overlap all of them grade")
    p.add_argument("sheet", metavar="SHEET")
    p.add_argument("--judges", required=True, metavar="A,B[,...]", help="the judges' names")
    p.add_argument(
        "--overlap", type=int, default=50, help="questions every judge grades (kappa's sample)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out-dir", default=".", metavar="DIR", help="where <judge>.csv go")
    p.set_defaults(run=_assign)

    p = verb("export-ls", "a judging sheet as Label Studio tasks, with its labelling config")
    p.add_argument("sheet", metavar="SHEET")
    p.add_argument("--out", default="tasks.json", metavar="FILE", help="config beside it: .xml")
    p.set_defaults(run=_export_ls)

    for name, help, run, a, b in (
        ("agreement", "Cohen's kappa between two graders, per slice", _agreement, "A", "B"),
        ("audit", "model pre-labels against human labels, per slice", _audit, "MODEL", "HUMAN"),
    ):
        p = verb(name, help)
        kinds = "label file (JSONL), sheet CSV or Label Studio JSON export"
        p.add_argument("a", metavar=a, help=kinds)
        p.add_argument(
            "b",
            metavar=b,
            nargs="?",
            default=None,
            help=kinds
            + (
                " (audit with one sheet: its prelabel against its grade)"
                if b == "HUMAN"
                else " (agreement with one file: the two judges it holds, e.g. a Label Studio "
                "export)"
            ),
        )
        if name == "agreement":
            p.add_argument(
                "--threshold", type=_kappa, default=0.6, help="flag kappa below this, in [-1, 1]"
            )
            p.add_argument(
                "--show", type=_whole(0), default=10, help="disagreements shown per slice"
            )
            p.add_argument(
                "--save",
                action="store_true",
                help="store the result in the dataset (review/agreement.json; needs --data)",
            )
        p.set_defaults(run=run)
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
