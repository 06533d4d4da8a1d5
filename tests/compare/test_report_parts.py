"""The frozen core and the rolling part in a report: every header names the part the numbers
come from, and a run scored on both parts gets the deciding measure per slice and part, the
values recomputed here from the per-question frames."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from ragsweep.compare.html import to_html
from ragsweep.compare.markdown import to_markdown
from ragsweep.compare.runs import load_run_folder, sweep_report
from ragsweep.compare.text import print_report

SLICES = ["limits", "exclusions", "identifiers"]


def frame(seed: int, parts: tuple[str, ...] = ("core", "rolling")) -> pd.DataFrame:
    """12 questions per slice, parts alternating; recall@5 and RR from a fixed pattern."""
    rows = []
    for s_i, s in enumerate(SLICES):
        for i in range(12):
            hit = float((i * 7 + s_i * 3 + seed) % 5 < 3)
            rr = [1.0, 0.5, 1 / 3, 0.0][(i + seed + s_i) % 4]
            rows.append((f"{s[0]}{i:02d}", s, parts[i % len(parts)], hit, rr))
    return pd.DataFrame(rows, columns=["qid", "slice", "subset", "recall@5", "RR"])


def record(root: Path, name: str, scores: pd.DataFrame, subset: str):
    folder = root / name
    (folder / "results").mkdir(parents=True)
    (folder / "config").mkdir()
    scores.to_csv(folder / "results" / "per_question.csv", index=False)
    rows = [*SLICES, "all", "weighted"]
    pd.DataFrame({"slice": rows, "recall_at_5": 0.0}).to_csv(folder / "results" / "summary.csv")
    (folder / "config" / "config.yaml").write_text(
        f"eval:\n  k_prompt: 5\n  traffic_weights: null\n  subset: {subset}\n"
    )
    return load_run_folder(folder, name, f"id-{name}", {"ragsweep.labels": "L"})


def rendered(report) -> dict[str, str]:
    out = io.StringIO()
    print_report(report, Console(file=out, width=400, color_system=None))
    return {"markdown": to_markdown(report), "html": to_html(report), "text": out.getvalue()}


@pytest.fixture
def both(tmp_path):
    runs = {v: record(tmp_path, v, frame(seed), "all") for v, seed in (("60", 0), ("30", 1))}
    runs["90"] = record(tmp_path, "90", frame(2), "all")
    return sweep_report(runs, values=["30", "60", "90"], baseline="60", name="s", factor="k")


def test_the_table_by_part_holds_each_parts_mean_per_slice(both):
    frames = {"60": frame(0), "30": frame(1), "90": frame(2)}
    expected = []
    for stratum in [*SLICES, "all"]:
        measure = "RR" if stratum == "identifiers" else "recall@5"
        for part in ("core", "rolling"):
            for run in ("60", "30", "90"):
                f = frames[run]
                here = f if stratum == "all" else f[f["slice"] == stratum]
                here = here[here["subset"] == part]
                expected.append((stratum, measure, part, len(here), run, here[measure].mean()))
    got = both.parts
    assert list(got.columns) == ["stratum", "measure", "part", "n", "run", "value"]
    assert [tuple(r[:5]) for r in got.itertuples(index=False)] == [e[:5] for e in expected]
    assert got["value"].tolist() == pytest.approx([e[5] for e in expected])
    # each part's n adds up to the slice's
    n = got[got["run"] == "60"].groupby("stratum", sort=False)["n"].sum().to_dict()
    assert n == {s: both.n[s] for s in [*SLICES, "all"]} == {**{s: 12 for s in SLICES}, "all": 36}
    assert both.parts_scored == ("core", "rolling") and both.subset == "all"


def test_every_rendering_shows_the_parts_side_by_side(both):
    core = both.parts[(both.parts["stratum"] == "limits") & (both.parts["part"] == "core")]
    values = [f"{v:.3f}" for v in core.set_index("run").loc[["60", "30", "90"], "value"]]
    for name, text in rendered(both).items():
        assert "eval.subset=all" in text, name
        assert "by part" in text, name
        flat = re.sub(r"<[^>]+>|[|│┃]", " ", text)
        row = re.search(r"limits\s+core\s+6\s+" + r"\s+".join(map(re.escape, values)), flat)
        assert row is not None, name
        assert re.search(r"identifiers \(RR\)\s+rolling\s+6\s", flat), name
    assert both.to_json()["parts"][0] == {
        "stratum": "limits",
        "measure": "recall@5",
        "part": "core",
        "n": 6,
        "run": "60",
        "value": pytest.approx(float(core.set_index("run").loc["60", "value"])),
    }


def test_a_run_scored_on_one_part_says_so_in_every_header(tmp_path):
    runs = {
        v: record(tmp_path, v, frame(seed, ("core",)), "core") for v, seed in (("60", 0), ("30", 1))
    }
    report = sweep_report(runs, values=["30", "60"], baseline="60", name="s", factor="k")
    assert report.parts is None and report.parts_scored == ("core",)
    for name, text in rendered(report).items():
        assert "Questions: the frozen core of the labelled set only (eval.subset=core)." in text, (
            name
        )
        assert "by part" not in text, name


def test_a_set_without_a_rolling_question_scored_on_all_says_which_part(tmp_path):
    runs = {
        v: record(tmp_path, v, frame(seed, ("core",)), "all") for v, seed in (("60", 0), ("30", 1))
    }
    report = sweep_report(runs, values=["30", "60"], baseline="60", name="s", factor="k")
    assert report.part_note() == (
        "Questions: the frozen core of the labelled set only (eval.subset=all)."
    )
