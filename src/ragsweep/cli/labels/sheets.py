"""`ragsweep labels pool`, `prelabel`, `assign` and `export-ls`: judging sheets, pooled from
several systems or a logged sweep, pre-labelled, split between judges, or handed to Label
Studio (docs/labelling.md, "2. Pool candidates and pre-label them" and "5. Two judges")."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ragsweep.cli.labels.common import AddVerb, data_dir, whole
from ragsweep.errors import UserError


def _systems(args: argparse.Namespace) -> dict[str, Any]:
    from ragsweep.labelling.pool import DEFAULT_SYSTEMS

    systems: dict[str, Any] = {}
    for spec, is_run in [*((s, False) for s in args.system), *((r, True) for r in args.runs)]:
        name, eq, value = spec.partition("=")
        if not eq or not name:
            flag = "--run NAME=FILE" if is_run else "--system NAME='OVERRIDE ...'"
            raise UserError(f"{spec!r}: write {flag}")
        systems[name] = Path(value) if is_run else value.split()
    return systems or DEFAULT_SYSTEMS


def _pool(args: argparse.Namespace) -> int:
    from ragsweep.labelling.pool import pool, write_sheet
    from ragsweep.labelling.sheets import dataset_candidates

    if args.sweep is not None or args.run_ids:
        return _pool_sweep(args)
    if args.uri is not None:
        raise UserError("--uri names the store of --sweep/--runs; give one of them, or drop --uri")
    base: Any = [] if args.data is None else Path(args.data)
    questions: Any = None if args.questions == "split" else args.questions
    if questions not in (None, "all"):
        questions = questions.split(",")
    if args.candidates:
        questions = dataset_candidates(data_dir(args), Path(args.candidates), args.limit)
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
    print_collapsed(done)
    return 0


def print_collapsed(done: Any) -> None:
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
    print_collapsed(done.pool)
    print(
        f"judging sheet {out}; fill its grade column, then `ragsweep labels import {out} "
        f"--data {done.dataset.root} --judge NAME` and `ragsweep labels rebaseline {done.sweep}`"
    )
    return 0


def _prelabel(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from ragsweep.data import load_dataset
    from ragsweep.labelling.prelabel import prelabel_sheet
    from ragsweep.labelling.sheet_columns import SHEET_COLUMNS
    from ragsweep.labelling.sheetfile import read_judging_sheet, write_sheet_frame

    sheet_path = Path(args.sheet)
    if not sheet_path.is_file():
        raise UserError(f"{sheet_path}: no such judging sheet; write one with `labels pool`")
    dataset = load_dataset(data_dir(args))
    # CSV or .xlsx, verified, every clause one of the dataset's: the pre-labeller grades them
    sheet = read_judging_sheet(sheet_path, SHEET_COLUMNS, dataset, known=True)
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
    price = None
    if args.price_in is not None or args.price_out is not None:
        from ragsweep.labelling.chat import Price

        price = Price(args.price_in or 0.0, args.price_out or 0.0)
    filled, summary = prelabel_sheet(sheet, dataset, at=at, chat=chat, price=price)
    out = Path(args.out or sheet_path)
    write_sheet_frame(filled, out)  # in the format of its suffix: .xlsx stays .xlsx
    print(summary)
    print(f"pre-labels written to {out} (columns prelabel, prelabel_source)")
    return 0


def _assign(args: argparse.Namespace) -> int:
    from ragsweep.labelling.assign import assign
    from ragsweep.labelling.sheet_columns import SHEET_COLUMNS
    from ragsweep.labelling.sheetfile import read_judging_sheet, write_sheet_frame

    sheet = Path(args.sheet)
    rows = read_judging_sheet(sheet, SHEET_COLUMNS)
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
    from ragsweep.labelling.labelstudio import TASK_FIELDS, export_tasks
    from ragsweep.labelling.sheetfile import read_judging_sheet

    out = Path(args.out)
    n, config = export_tasks(read_judging_sheet(Path(args.sheet), TASK_FIELDS), out)
    print(
        f"{n} Label Studio tasks -> {out}; labelling config -> {config} (paste it in "
        "the project's Labeling Interface, import the tasks, then export the project as JSON "
        "and give that file to `labels agreement` or `labels import`)"
    )
    return 0


def add_pool(verb: AddVerb) -> None:
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
        type=whole(1),
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
        "--limit", type=whole(0), default=0, help="with --candidates: at most N per slice (0: all)"
    )
    p.set_defaults(run=_pool)


def add_prelabel(verb: AddVerb) -> None:
    p = verb("prelabel", "fill a judging sheet's pre-label columns (offline, or a chat model)")
    p.add_argument("sheet", metavar="SHEET")
    p.add_argument("--chat-url", default=None, help="OpenAI-compatible base URL (.../v1)")
    p.add_argument("--chat-model", default=None, help="the model name the server knows")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="env variable with the key")
    p.add_argument("--concurrency", type=whole(1), default=4, help="requests in flight at most")
    p.add_argument("--cache-dir", default=".ragsweep_cache/chat", help="response cache")
    p.add_argument(
        "--price-in", type=float, default=None, metavar="USD", help="$ per million prompt tokens"
    )
    p.add_argument(
        "--price-out",
        type=float,
        default=None,
        metavar="USD",
        help="$ per million completion tokens (with --price-in: the run's cost in dollars)",
    )
    p.add_argument("--out", default=None, metavar="FILE", help="default: rewrite SHEET")
    p.set_defaults(run=_prelabel)


def add_assign(verb: AddVerb) -> None:
    p = verb("assign", "split a judging sheet between judges, with an overlap all of them grade")
    p.add_argument("sheet", metavar="SHEET")
    p.add_argument("--judges", required=True, metavar="A,B[,...]", help="the judges' names")
    p.add_argument(
        "--overlap", type=int, default=50, help="questions every judge grades (kappa's sample)"
    )
    p.add_argument("--seed", type=whole(0), default=0)
    p.add_argument("--out-dir", default=".", metavar="DIR", help="where <judge>.csv go")
    p.set_defaults(run=_assign)


def add_export_ls(verb: AddVerb) -> None:
    p = verb("export-ls", "a judging sheet as Label Studio tasks, with its labelling config")
    p.add_argument("sheet", metavar="SHEET")
    p.add_argument("--out", default="tasks.json", metavar="FILE", help="config beside it: .xml")
    p.set_defaults(run=_export_ls)
