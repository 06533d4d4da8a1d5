"""`weak_slices`: report notes on the slices where the second reviewer and labels.jsonl agree
weakly, checked against scikit-learn's kappa on the built-in sample, and silent without a
second reviewer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from ragsweep.data import Dataset, load_dataset
from ragsweep.errors import UserError
from ragsweep.labelling.agreement import THRESHOLD, weak_slices

TINY = Path(__file__).parents[1] / "fixtures" / "tiny"
KEY = ["qid", "document", "section", "version"]


@pytest.fixture(scope="module")
def sample() -> Dataset:
    return load_dataset()


def _sklearn_kappa_per_slice(ds: Dataset) -> dict[str, tuple[float, int]]:
    """slice -> (unweighted kappa, items) of reviewer2 against labels.jsonl, by scikit-learn."""
    both = ds.reviews["reviewer2"].merge(ds.labels, on=KEY, suffixes=("_r2", "_lab"))
    both["slice"] = both["qid"].map(ds.questions.set_index("qid")["slice"])
    return {
        s: (float(cohen_kappa_score(g["grade_r2"], g["grade_lab"], labels=[0, 1, 2])), len(g))
        for s, g in both.groupby("slice")
    }


def test_the_sample_flags_no_slice_at_0_6_and_exclusions_just_above(sample: Dataset) -> None:
    """The sample's second reviewer differs from the labels on 38 of the 708 exclusions items,
    which hold only 43 relevant labels (most differences are a 1 where the labels say 0), so the
    exclusions slice has the lowest kappa, 0.631: above the default 0.6, so the sample flags no
    slice; a threshold of 0.64 (below procedures' 0.641) flags exclusions alone."""
    kappas = _sklearn_kappa_per_slice(sample)
    lowest = min(kappas, key=lambda s: kappas[s][0])
    assert lowest == "exclusions"
    assert kappas["exclusions"][0] == pytest.approx(0.631, abs=5e-4)
    assert kappas["procedures"][0] == pytest.approx(0.641, abs=5e-4)
    assert {s for s, (k, _) in kappas.items() if k < THRESHOLD} == set()
    assert weak_slices(sample) == []
    notes = weak_slices(sample, 0.64)
    assert notes == [
        f"judges agree weakly on {lowest} (reviewer2 vs labels.jsonl: kappa "
        f"{kappas[lowest][0]:.3f} < 0.64 on {kappas[lowest][1]} reviewed items): "
        "differences on this slice measure the labels as much as the retriever; tighten "
        "relevance.md and re-judge"
    ]
    assert "kappa 0.631 < 0.64 on 708 reviewed items" in notes[0]


def test_the_threshold_and_the_covered_slices_decide(sample: Dataset) -> None:
    def flagged(threshold: float, slices: list[str] | None = None) -> list[str]:
        notes = weak_slices(sample, threshold, slices=slices)
        return [n.split(" (", 1)[0].rsplit(" ", 1)[1] for n in notes]

    assert flagged(0.63) == []  # 0.631 is the lowest
    assert flagged(0.64) == ["exclusions"]
    # procedures 0.641, definitions 0.649, in the dataset's slice order; identifiers 0.716
    assert flagged(0.7) == ["exclusions", "procedures", "definitions"]
    # limits 0.734 is the highest
    assert flagged(0.73) == ["exclusions", "procedures", "definitions", "identifiers"]
    assert flagged(0.64, ["procedures", "definitions"]) == []
    assert flagged(0.7, []) == []


def test_no_second_reviewer_no_notes(tmp_path: Path) -> None:
    root = Path(shutil.copytree(TINY, tmp_path / "tiny"))
    assert len(weak_slices(load_dataset(root))) == 1  # limits: kappa 0.5 on 3 items
    (root / "review" / "reviewer2.jsonl").unlink()  # a model's pre-labels are not a judge
    assert "prelabels" in load_dataset(root).reviews
    assert weak_slices(load_dataset(root)) == []
    shutil.rmtree(root / "review")
    assert weak_slices(load_dataset(root)) == []


def test_a_dataset_whose_one_slice_is_all(tmp_path: Path) -> None:
    """An imported dataset without slices has the one slice `all`, the overall row's name."""
    root = Path(shutil.copytree(TINY, tmp_path / "tiny"))
    meta = json.loads((root / "dataset.json").read_text(encoding="utf-8"))
    meta["slices"] = ["all"]
    (root / "dataset.json").write_text(json.dumps(meta), encoding="utf-8")
    lines = (root / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [{**json.loads(line), "slice": "all"} for line in lines]
    (root / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    ds = load_dataset(root)
    assert weak_slices(ds, 0.6) == []  # overall kappa 0.781
    (note,) = weak_slices(ds, 0.8)
    assert note.startswith("judges agree weakly on all (reviewer2 vs labels.jsonl: kappa 0.781")
    assert "on 7 reviewed items" in note


@pytest.mark.parametrize("bad", ["0.6", None, True])
def test_a_threshold_that_is_not_a_number_is_refused(sample: Dataset, bad: object) -> None:
    with pytest.raises(UserError, match="agreement threshold must be a number"):
        weak_slices(sample, bad)  # type: ignore[arg-type]
