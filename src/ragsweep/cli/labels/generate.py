"""`ragsweep labels generate`: synthetic questions drafted from the corpus, labelled by
construction, previewed, and written with --apply (docs/labelling.md, "Questions from the
corpus")."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragsweep.cli.labels.common import AddVerb, data_dir, now, scrubbed_kinds, whole, writable
from ragsweep.errors import UserError

#: example questions the preview prints per slice
EXAMPLES = 2


def _generate(args: argparse.Namespace) -> int:
    from ragsweep.labelling import generate as gen
    from ragsweep.labelling.generate_spec import load_spec

    if bool(args.chat_url) != bool(args.chat_model):
        raise UserError(
            "generate: --chat-url and --chat-model go together; give both (the server's /v1 "
            "root and a model it serves), or neither for the offline templates"
        )
    data = writable(args) if args.apply else data_dir(args)
    spec = load_spec(args.templates) if args.templates else None
    chat = judge = None
    if args.chat_url:
        from ragsweep.labelling.chat import ChatLabeller
        from ragsweep.labelling.generate_chat import ChatGenerator

        settings = {
            "api_key_env": args.api_key_env,
            "max_concurrency": args.concurrency,
            "cache_dir": Path(args.cache_dir),
        }
        chat = ChatGenerator(args.chat_url, args.chat_model, spec=spec, **settings)
        judge = ChatLabeller(args.chat_url, args.chat_model, **settings)
    options = {} if args.per_slice is None else {"per_slice": args.per_slice}
    if args.depth is not None:
        options["depth"] = args.depth
    done = gen.generate(
        data,
        seed=args.seed,
        at=now(),
        chat=chat,
        judge=judge,
        spec=spec,
        apply=args.apply,
        **options,
    )
    counts = done.counts()
    print(
        f"drafted {len(done.questions)} synthetic question(s) by {done.generator}: "
        + ", ".join(f"{s} {n}" for s, n in counts.items())
        + f"; {done.duplicates} draft(s) dropped as duplicates of the set or of each other"
    )
    for name, why in done.short.items():
        print(f"  {name}: {why}")
    if done.scrubbed:
        print("personal data scrubbed from the model's questions: " + scrubbed_kinds(done.scrubbed))
    grades = done.grades()
    print(
        f"labelled: each question's source clause grade 2; pooled {', '.join(done.systems)} at "
        f"depth {done.depth}, graded by {done.judge}: {len(done.labels)} label(s), grade 2 "
        f"{grades[2]}, 1 {grades[1]}, 0 {grades[0]}"
    )
    for name in counts:
        for q in [q for q in done.questions if q.slice == name][:EXAMPLES]:
            print(f"  {name:<12} {q.qid}  {q.text!r}  <- {q.source.clause_id}")
    if done.applied:
        print(
            f"wrote {len(done.questions)} question(s) (subset synthetic) and {len(done.labels)} "
            f"label(s) into {data}; {len(done.changes)} change(s) in "
            "history/labels_changelog.jsonl; score them apart with eval.subset=synthetic"
        )
    elif done.questions:
        print("preview only: add --apply --data DIR to write them (nothing was written)")
    return 0


def add_generate(verb: AddVerb) -> None:
    p = verb("generate", "synthetic questions drafted from the corpus, labelled by construction")
    p.add_argument(
        "--per-slice", type=whole(1), default=None, metavar="N", help="questions per slice (20)"
    )
    p.add_argument("--seed", type=whole(0), default=0, help="draws the clauses and templates")
    p.add_argument(
        "--templates",
        default=None,
        metavar="FILE",
        help="the generation file (default: ragsweep/labelling/generate.yaml)",
    )
    p.add_argument("--chat-url", default=None, help="OpenAI-compatible base URL (.../v1)")
    p.add_argument("--chat-model", default=None, help="the model that writes and judges")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="env variable with the key")
    p.add_argument("--concurrency", type=whole(1), default=4, help="requests in flight at most")
    p.add_argument("--cache-dir", default=".ragsweep_cache/chat", help="response cache")
    p.add_argument(
        "--depth", type=whole(1), default=None, help="passages per system in the judging pool (10)"
    )
    p.add_argument("--apply", action="store_true", help="write them (default: a preview)")
    p.set_defaults(run=_generate)
