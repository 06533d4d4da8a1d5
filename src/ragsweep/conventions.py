"""The names every layer agrees on, written down once: the summary rows (`all`, `weighted`),
metric keys (`metric_key` / `parse_metric_key`, `heldout_key`, the families `cost/`, `seconds/`,
`questions/`, `ties/`), run tags, the config blocks that decide nothing about the numbers
(`NOT_RESULTS`) or change how a ranking is scored (`SCORING_BLOCKS`), and the decision rule.
docs/architecture.md ("Conventions") says what each means.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ragsweep.errors import UserError
from ragsweep.measures import Measure

# ----------------------------------------------------------------------------- slices

ALL, WEIGHTED = "all", "weighted"
#: rows a per-slice table adds after the slices, in this order
SUMMARY_ROWS: tuple[str, ...] = (ALL, WEIGHTED)


def reserved_slice(name: str, n_slices: int) -> bool:
    """Whether a dataset may not use `name` as a slice: `weighted` never, `all` unless it is
    the only slice (an unsliced set)."""
    return name == WEIGHTED or (name == ALL and n_slices > 1)


# ----------------------------------------------------------------------------- metric keys

COST, SECONDS, QUESTIONS = "cost", "seconds", "questions"
#: diagnostics of the final ranking: `ties/k_prompt` (questions with a score tie across the
#: prompt cut) and `ties/k_prompt_share`
TIES = "ties"
#: prefixes of the comparison's metrics: the paired difference and its interval bounds
DELTA, CI_LOW, CI_HIGH = "delta", "ci_low", "ci_high"
BASELINE = "baseline"
#: the confirm run's prefix: held-out numbers never share a name with dev numbers
HELDOUT = "heldout"
#: per-question columns of a set partly labelled by a model judge (`ragsweep.data.judge`):
#: `audited` (1 where people graded the question too, else 0) and `judge:<measure>` (the same
#: ranking scored on the judge's grades; `judge:labels` its labels as `labels` keeps the set's).
#: Metric prefixes on such a set: `uncorrected/` (a configuration's comparison on the labels
#: alone) and `judge/` (the parent's: the judge's bias and the audited questions per slice)
AUDITED_COLUMN, JUDGE_PREFIX = "audited", "judge:"
UNCORRECTED, JUDGE = "uncorrected", "judge"
COMPARISON_PREFIXES: tuple[str, ...] = (DELTA, CI_LOW, CI_HIGH)
_UNSAFE = re.compile(r"[^A-Za-z0-9_\-. :]+")


def metric_safe(text: str) -> str:
    """`text` with every character MLflow refuses in a metric key (anything but alphanumerics
    and `_ - . space :`) replaced by `_`."""
    return _UNSAFE.sub("_", text)


def metric_key(measure: Measure, stratum: str, prefix: str | None = None) -> str:
    """`[<prefix>/]<measure key>/<stratum>`, e.g. `recall_at_5/exclusions`."""
    key = f"{measure.key}/{metric_safe(stratum)}"
    return f"{prefix}/{key}" if prefix else key


#: `tracking.metrics`, what a run logs as MLflow metrics: `decision` (the default) the few
#: the runs table and charts show (`decision_metrics`), `all` every number it measured
METRICS_SETTING = "tracking.metrics"
METRICS_DECISION, METRICS_ALL = "decision", "all"
METRICS_CHOICES: tuple[str, ...] = (METRICS_DECISION, METRICS_ALL)


def metrics_rule(value: object) -> str:
    """`tracking.metrics` checked: one of `METRICS_CHOICES` (None: `decision`), else a
    `UserError` with the fix."""
    text = METRICS_DECISION if value is None else str(value)
    if text not in METRICS_CHOICES:
        raise UserError(
            f"tracking.metrics must be {' or '.join(METRICS_CHOICES)}, got {value!r}; "
            f"{METRICS_DECISION} logs the deciding measure per slice, unjudged@k and cost, "
            f"{METRICS_ALL} every number (both write every number to results/metrics.csv)"
        )
    return text


def decision_metrics(
    metrics: Mapping[str, float], k_prompt: int, computed: Collection[Measure]
) -> dict[str, float]:
    """The metrics a run logs by default (`tracking.metrics=decision`): per stratum its
    deciding measure (`deciding_measure`) and unjudged@k_prompt, and every `cost/` key.
    `computed`: the measures the run scored."""
    decision = decision_measure(k_prompt)
    unjudged = Measure("unjudged", int(k_prompt))

    def kept(key: str) -> bool:
        if key.startswith(f"{COST}/"):
            return True
        parsed = parse_metric_key(key)
        if parsed is None or parsed.prefix is not None:
            return False
        return parsed.measure in (deciding_measure(parsed.stratum, decision, computed), unjudged)

    return {k: v for k, v in metrics.items() if kept(k)}


def heldout_key(key: str) -> str:
    """`heldout/<key>`: a number measured on the held-out questions (the confirm run's)."""
    return f"{HELDOUT}/{key}"


@dataclass(frozen=True)
class MetricKey:
    """A parsed quality metric key: `prefix` is None for the measure itself."""

    measure: Measure
    stratum: str
    prefix: str | None = None


def parse_metric_key(key: str) -> MetricKey | None:
    """The `MetricKey` of `[<prefix>/]<measure key>/<stratum>`, or None for any other metric
    (`cost/...`, `seconds/...`, `questions/...`, `ties/...`)."""
    parts = key.split("/")
    if len(parts) == 3 and parts[0] in (*COMPARISON_PREFIXES, BASELINE):
        prefix, rest = parts[0], parts[1:]
    elif len(parts) == 2:
        prefix, rest = None, parts
    else:
        return None
    measure = _measure_of_key(rest[0])
    return None if measure is None else MetricKey(measure, rest[1], prefix)


def _measure_of_key(text: str) -> Measure | None:
    """The measure whose MLflow key is exactly `text` (`recall_at_5`, `mrr`), else None."""
    try:
        measure = Measure.parse(text)
    except UserError:
        return None
    return measure if measure.key == text else None


def quality_metrics(metrics: dict[str, float]) -> dict[str, float]:
    """The measure-per-stratum metrics of a run (no prefix), without costs and timings."""
    return {k: v for k, v in metrics.items() if (p := parse_metric_key(k)) and p.prefix is None}


# ----------------------------------------------------------------------------- tags

TAG_PREFIX = "ragsweep."
TAG_STAGE = "ragsweep.stage"
STAGE_SWEEP, STAGE_CONFIG, STAGE_CONFIRM, STAGE_REPRODUCE, STAGE_REBASELINE = (
    "sweep",
    "config",
    "confirm",
    "reproduce",
    "rebaseline",
)
#: a configuration run of another system's ranked passages (`ragsweep score-passages`)
STAGE_EXTERNAL = "external"
#: what a comparison must hold fixed: tag `ragsweep.<pin>` on every run
PINS: tuple[str, ...] = ("snapshot", "labels", "split")


def tag(name: str) -> str:
    """`ragsweep.<name>`."""
    return f"{TAG_PREFIX}{name}"


# ----------------------------------------------------------------------------- config blocks

#: config blocks that decide where results go or how they are compared, not what they are
NOT_RESULTS: tuple[str, ...] = ("tracking", "cache", "hydra", "report", "confirm", "sweep")
#: config blocks that change the data or how a ranking is scored
SCORING_BLOCKS: tuple[str, ...] = ("data", "eval")


def block_of(key: str) -> str:
    """The top-level config block of a dotted key or override (`+chunker.size` -> `chunker`)."""
    return key.lstrip("+~").split(".", 1)[0].split("/", 1)[0]


def decides_nothing(key: str) -> bool:
    """Whether a dotted key (or override key) lies in a `NOT_RESULTS` block."""
    return block_of(key) in NOT_RESULTS


# ----------------------------------------------------------------------------- the decision rule

#: the identifiers slice usually has one right passage: reciprocal rank decides there
SLICE_DECISION: dict[str, Measure] = {"identifiers": Measure("RR")}
#: measures shown beside the decision measure when a sweep changes the order of the passages
ORDERING_MEASURES: tuple[Measure, ...] = (Measure("nDCG", 10), Measure("recall", 5))
#: config blocks whose sweeps reorder the same passages
ORDERING_BLOCKS: tuple[str, ...] = ("fusion", "reranker")


def decision_measure(k_prompt: int) -> Measure:
    """recall@k_prompt: the generator can use nothing outside the passages in its prompt."""
    return Measure("recall", int(k_prompt))


def deciding_measure(stratum: str, decision: Measure, computed: Collection[Measure]) -> Measure:
    """The measure that decides in `stratum`: its `SLICE_DECISION` measure when the run
    computed it, else `decision` (as a report decides: `compare.build.build_report`)."""
    own = SLICE_DECISION.get(stratum)
    return own if own is not None and own in computed else decision


def unjudged_measures(k_prompt: int, measures: Sequence[Measure]) -> tuple[Measure, ...]:
    """unjudged@k_prompt (the share of the prompt nobody judged, what the verdicts' bounds turn
    on) and unjudged@K at the deepest cutoff of `measures`: logged on every configuration run."""
    deepest = max([int(k_prompt), *(m.k for m in measures if m.k is not None)])
    return tuple(dict.fromkeys([Measure("unjudged", int(k_prompt)), Measure("unjudged", deepest)]))


#: How passages nobody judged are treated (`eval.unjudged`, tag `ragsweep.unjudged`): `bounds`
#: (the default) scores them as not relevant and as relevant, and a verdict that differs reads
#: `needs judging`; `assume_not_relevant` is trec_eval's convention, an assumption every report
#: that relies on it prints (docs/report.md, "Unjudged passages").
UNJUDGED_BOUNDS, ASSUME_NOT_RELEVANT = "bounds", "assume_not_relevant"
UNJUDGED_CHOICES: tuple[str, ...] = (UNJUDGED_BOUNDS, ASSUME_NOT_RELEVANT)


def unjudged_rule(value: object) -> str:
    """`eval.unjudged` checked: one of `UNJUDGED_CHOICES`, else a `UserError` with the fix."""
    text = UNJUDGED_BOUNDS if value is None else str(value)
    if text not in UNJUDGED_CHOICES:
        raise UserError(
            f"eval.unjudged must be {' or '.join(UNJUDGED_CHOICES)}, got {value!r}; "
            f"{ASSUME_NOT_RELEVANT} accepts trec_eval's convention (unjudged = not relevant)"
        )
    return text


def ordering_changed(factor: str | None) -> bool:
    """Whether a sweep over `factor` changes the order of the same passages (fusion, reranker),
    so nDCG@10 and recall@5 are shown beside the decision measure."""
    return bool(factor) and block_of(str(factor)) in ORDERING_BLOCKS


def sweep_measures(k_prompt: int, factor: str | None) -> tuple[Measure, tuple[Measure, ...]]:
    """(decision measure, measures shown) for a sweep over `factor`."""
    decision = decision_measure(k_prompt)
    shown = [decision, *(ORDERING_MEASURES if ordering_changed(factor) else ())]
    return decision, tuple(dict.fromkeys(shown))
