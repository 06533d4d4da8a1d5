"""Settings no run can use are refused in one line, exit 2, before anything is written (no
store, no cache entry, no sweep folder): impossible joblib launcher settings
(`hydra.launcher.n_jobs=0` created the store, logged a FAILED parent and printed 20 lines),
`eval.*` values out of range (`eval.min_overlap=1.5` was refused only after chunking had
written a cache entry, and a sweep's configurations all failed on it), and a judging sheet
`labels prelabel` cannot grade (its error named no file)."""

from __future__ import annotations

import pytest

from conftest import cli_in
from ragsweep.config import compose
from ragsweep.errors import UserError
from ragsweep.experiment.plan import _launcher_problem
from ragsweep.scoring.eval_config import check_eval
from toy import TINY, TOY

#: what Hydra's joblib launcher hands joblib by default (`warm.joblib_arguments`)
JOBLIB = {
    "n_jobs": 2,
    "backend": "loky",
    "prefer": "processes",
    "require": None,
    "verbose": 0,
    "timeout": None,
    "pre_dispatch": "2*n_jobs",
    "batch_size": "auto",
    "temp_folder": None,
    "max_nbytes": None,
    "mmap_mode": "r",
}


@pytest.mark.parametrize(
    ("setting", "says"),
    [
        ({"n_jobs": 0}, "n_jobs=0 runs nothing: give the number of workers (1 or more; -1: "),
        ({"pre_dispatch": 0}, "pre_dispatch=0 dispatches nothing: give 1 or more"),
        ({"pre_dispatch": "0*n_jobs"}, "pre_dispatch=0*n_jobs dispatches nothing"),
        ({"pre_dispatch": "x"}, "'x' is not a valid or supported arithmetic expression."),
        ({"timeout": -1.0}, "timeout=-1.0 stops every configuration at once: give seconds"),
        ({"prefer": "bogus"}, "prefer=bogus is not a valid backend hint, expected one of"),
        ({"require": "bogus"}, "require=bogus is not a valid backend constraint"),
        ({"batch_size": 0}, "batch_size must be 'auto' or a positive integer, got: 0"),
        ({"max_nbytes": "abc"}, "Invalid literal for size give: abc"),
    ],
)
def test_impossible_launcher_settings_are_named(setting, says):
    assert _launcher_problem({**JOBLIB, **setting}).startswith(says)


@pytest.mark.parametrize(
    "setting", [{}, {"n_jobs": 1}, {"n_jobs": -1}, {"pre_dispatch": "all"}, {"timeout": 30.0}]
)
def test_possible_launcher_settings_pass(setting):
    assert _launcher_problem({**JOBLIB, **setting}) is None


@pytest.mark.parametrize(
    ("override", "says"),
    [
        ("eval.min_overlap=1.5", "eval.min_overlap must be a share in (0, 1]: how much of the "),
        ("eval.min_overlap=0", "eval.min_overlap must be a share in (0, 1]"),
        ("eval.min_overlap=abc", "eval.min_overlap must be a share in (0, 1]"),
        ("eval.k_prompt=2.5", "eval.k_prompt must be a positive whole number of passages, got"),
        ("eval.k_prompt=0", "eval.k_prompt must be a positive whole number of passages, got 0"),
        ("eval.gain=foo", "eval.gain must be exp or linear, got 'foo'"),
        ("eval.normalise_weights=maybe", "eval.normalise_weights must be true or false, got"),
        ("eval.unjudged=never", "eval.unjudged must be bounds or assume_not_relevant"),
    ],
)
def test_eval_settings_out_of_range_are_refused(override, says):
    with pytest.raises(UserError) as refused:
        check_eval(compose([override]))
    assert str(refused.value).startswith(says)


def test_the_default_eval_settings_pass():
    check_eval(compose(["eval.min_overlap=1", "eval.k_prompt=1"]))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["-m", *TOY, "fusion.k=10,60", "hydra.launcher.n_jobs=0"],
            "hydra.launcher: n_jobs=0 runs nothing: give the number of workers",
        ),
        pytest.param(
            ["-m", *TOY, "fusion.k=10,60", "eval.min_overlap=1.5"],
            "eval.min_overlap must be a share in (0, 1]",
            marks=pytest.mark.slow,
        ),
        pytest.param(
            [*TOY, "eval.min_overlap=1.5"],
            "eval.min_overlap must be a share in (0, 1]",
            marks=pytest.mark.slow,
        ),
    ],
    ids=["sweep n_jobs=0", "sweep min_overlap", "run min_overlap"],
)
def test_refused_before_anything_is_written(tmp_path, args, says):
    ran = cli_in(tmp_path, *args)
    assert ran.code == 2 and ran.out == ""
    (line,) = ran.err.strip().splitlines()
    assert line.startswith(f"ragsweep: error: {says}"), line
    assert list(tmp_path.iterdir()) == []  # no mlruns/, .ragsweep_cache/, multirun/, outputs/


HEADER = (
    "qid,question,slice,version,document,section,clause_version,clause_text,systems,"
    "existing_grade,prelabel,prelabel_source,grade,note,judge"
)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "name,size\nhome,12\n",
            "notes.csv:1: field 'qid': missing column; a judged sheet needs the columns qid, "
            "question, slice, version, document, section, clause_version",
        ),
        (
            f"{HEADER}\nq01,Is flood covered?,exclusions,2024,motor-summary,4.1,2024,,,,,,,,\n",
            "notes.csv:2: field 'section': clause motor-summary/4.1@2024 is not in the corpus "
            f"snapshot of {TINY}; give the dataset the sheet was pooled on (--data DIR)",
        ),
    ],
    ids=["not a sheet", "another dataset's sheet"],
)
def test_prelabel_refuses_a_sheet_it_cannot_grade_in_one_line(tmp_path, text, says):
    (tmp_path / "notes.csv").write_text(text)
    ran = cli_in(tmp_path, "labels", "prelabel", "notes.csv", "--data", str(TINY))
    assert ran.code == 2 and ran.out == ""
    (line,) = ran.err.strip().splitlines()
    assert line.startswith(f"ragsweep labels: error: {says}"), line
    assert (tmp_path / "notes.csv").read_text() == text  # not rewritten
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.csv"]
