"""TREC files in and out, and `ragsweep score` end to end (library call, CLI, one subprocess)."""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ragsweep.cli import main as cli_main
from ragsweep.errors import DatasetError
from ragsweep.scoring.trec import Qrels, Run, gain_arrays, read_qrels, read_run, write_run

L2 = math.log2
# the chapter's example: labels {c2: 2, c9: 1}, ranking [c7, c2, c4, c9, c1]
CHAPTER_QRELS = "q1 0 c2 2\nq1 0 c9 1\n"
CHAPTER_RUN = "".join(
    f"q1 Q0 {d} {i + 1} {5 - i} demo\n" for i, d in enumerate(["c7", "c2", "c4", "c9", "c1"])
)
EXP_NDCG5 = (3 / L2(3) + 1 / L2(5)) / (3 + 1 / L2(3))
LINEAR_NDCG5 = (2 / L2(3) + 1 / L2(5)) / (2 + 1 / L2(3))


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture
def chapter(tmp_path: Path) -> tuple[str, str]:
    return write(tmp_path, "qrels.txt", CHAPTER_QRELS), write(tmp_path, "run.txt", CHAPTER_RUN)


def score_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[dict, str]:
    """`ragsweep score ... --format json`: (parsed stdout, stderr)."""
    assert cli_main(["score", *args, "--format", "json"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


# --- reading -----------------------------------------------------------------------------------
def test_read_qrels_and_run(tmp_path: Path) -> None:
    qrels = read_qrels(write(tmp_path, "q", "1 0 a 2\n\n  1\t0 b -1  \n2 7 a 0\n"))
    assert (qrels.qids, qrels.docids, qrels.grades.tolist()) == (
        ("1", "1", "2"),
        ("a", "b", "a"),
        [2, -1, 0],
    )
    run = read_run(write(tmp_path, "r", "1 Q0 a 9 0.5 t\n1 Q0 b 1 -2e-3 t\n\n2 x a 0 7 other\n"))
    assert (run.qids, run.docids, run.scores.tolist()) == (
        ("1", "1", "2"),
        ("a", "b", "a"),
        [0.5, -0.002, 7.0],
    )


def trec_eval_files(seed: int = 3) -> tuple[list, list]:
    """Qrels and run rows of 30 queries, graded 0..3, with ties and msmarco-style docids that
    hold a `#` (`doc_50_2286987788#13`, as trec_eval's test/results.comment.test)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(30):
        docs = [f"doc_{q % 4}_{d}#{int(rng.integers(1, 20))}" for d in range(12)]
        docs = list(dict.fromkeys(docs))
        judged = rng.choice(len(docs), size=6, replace=False)
        qrels += [(f"q{q}", docs[i], int(rng.integers(0, 4))) for i in judged]
        ranked = rng.permutation(docs)[: int(rng.integers(3, len(docs)))]
        run += [(f"q{q}", d, float(rng.integers(0, 5))) for d in ranked]  # many ties
    return qrels, run


def trec_text(qrels: list, run: list) -> tuple[str, str]:
    """The rows as plain trec_eval files: 4 qrels fields, 6 run fields."""
    q_text = "".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels)
    r_text = "".join(f"{q} Q0 {d} {i} {s!r} plain\n" for i, (q, d, s) in enumerate(run))
    return q_text, r_text


def with_comments_and_columns(q_text: str, r_text: str) -> tuple[str, str]:
    """The same files as trec_eval also reads them: comment lines at the top and between
    judgements, and run lines of 9 fields with comment lines (one indented) among them."""
    q_lines = q_text.splitlines(keepends=True)
    q_out = ["# qrels written for a test\n"]
    for i, line in enumerate(q_lines):
        q_out.append(line)
        if i % 7 == 3:
            q_out.append(f"# after judgement {i}: q1 0 doc_1_1#1 3\n")
    r_out = ["# run comment qid Q0 docid rank score tag\n"]
    for i, line in enumerate(r_text.splitlines()):
        r_out.append(f"{line} extra{i} 0.5 more\n")
        if i % 11 == 5:
            r_out.append("  # an indented comment line\n" if i % 2 else "#q0 Q0 x 1 99 t\n")
    return "".join(q_out), "".join(r_out)


def rows_of(parsed: Qrels | Run, values: np.ndarray) -> list[tuple]:
    """(qid, docid, grade or score) of every line read."""
    return list(zip(parsed.qids, parsed.docids, values.tolist(), strict=True))


def test_comment_lines_and_extra_run_columns_read_as_trec_eval_reads_them(tmp_path: Path) -> None:
    q_text, r_text = trec_text(*trec_eval_files())
    q_noted, r_wide = with_comments_and_columns(q_text, r_text)
    assert q_noted.count("\n#") >= 10 and "#" in q_text  # comments, and ids holding a `#`
    qrels = [
        read_qrels(write(tmp_path, name, text)) for name, text in (("q", q_text), ("qc", q_noted))
    ]
    assert rows_of(qrels[1], qrels[1].grades) == rows_of(qrels[0], qrels[0].grades)
    runs = [read_run(write(tmp_path, name, text)) for name, text in (("r", r_text), ("rw", r_wide))]
    assert rows_of(runs[1], runs[1].scores) == rows_of(runs[0], runs[0].scores)
    assert len(runs[0]) == len(r_text.splitlines())


@pytest.mark.parametrize("level", [1, 2])
def test_score_reads_comments_and_9_columns_as_pytrec_eval_scores_the_clean_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], level: int
) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = trec_eval_files()
    q_text, r_text = trec_text(qrels, run)
    q_noted, r_wide = with_comments_and_columns(q_text, r_text)
    metrics = "AP,AP@5,RR,P@5,recall@10,nDCG@10"
    trec_names = ["map", "map_cut_5", "recip_rank", "P_5", "recall_10", "ndcg_cut_10"]
    options = ["--metrics", metrics, "--gain", "linear", "--rel-level", str(level)]

    def scored(qrels_text: str, run_text: str) -> dict:
        files = ["--qrels", write(tmp_path, "q.txt", qrels_text)]
        files += ["--run", write(tmp_path, "r.txt", run_text)]
        return score_json(capsys, *files, *options)[0]

    clean, noted = scored(q_text, r_text), scored(q_noted, r_wide)
    assert noted == clean
    q_dict: dict[str, dict[str, int]] = {}
    for q, d, g in qrels:
        q_dict.setdefault(q, {})[d] = g
    r_dict: dict[str, dict[str, float]] = {}
    for q, d, sc in run:
        r_dict.setdefault(q, {})[d] = max(r_dict.get(q, {}).get(d, -math.inf), sc)
    theirs = pytrec_eval.RelevanceEvaluator(q_dict, set(trec_names), relevance_level=level)
    expected = theirs.evaluate(r_dict)
    assert sorted(expected) == sorted(noted["per_query"]) and len(expected) == 30
    for qid, values in noted["per_query"].items():
        want = [expected[qid][t] for t in trec_names]
        np.testing.assert_allclose(list(values.values()), want, rtol=0, atol=1e-12, err_msg=qid)


def test_gzip_files_are_read(tmp_path: Path) -> None:
    path = tmp_path / "run.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(CHAPTER_RUN)
    assert len(read_run(path)) == 5


@pytest.mark.parametrize(
    ("reader", "text", "where", "fragment"),
    [
        (read_qrels, "q 0 a 1\nq 0 b\n", ":2: ", "3 fields where 4 are expected"),
        (read_qrels, "q 0 a 1\n\nq 0 b 1 extra\n", ":3: ", "'qid 0 docid grade'"),
        (read_qrels, "q 0 a 1.5\n", ":1: field 'grade': ", "'1.5' is not an integer"),
        (read_qrels, "q 0 a x\n", ":1: field 'grade': ", "not an integer"),
        (read_qrels, "q 0 a 1\nq 0 b 0\nq 0 a 2\n", ":3: field 'docid': ", "first on line 1"),
        (read_run, "q Q0 a 1 0.5\n", ":1: ", "5 fields where at least 6 are expected"),
        (read_run, "q Q0 a 1 0.5 t\nq Q0 b 2 high t\n", ":2: field 'score': ", "'high'"),
        (read_run, "q Q0 a 1 nan t\n", ":1: field 'score': ", "not a finite number"),
        (read_run, "q Q0 a 1 inf t\n", ":1: field 'score': ", "not a finite number"),
    ],
)
def test_malformed_lines_name_file_line_and_field(
    tmp_path: Path, reader, text: str, where: str, fragment: str
) -> None:
    path = write(tmp_path, "file.txt", text)
    with pytest.raises(DatasetError) as err:
        reader(path)
    message = str(err.value)
    assert message.startswith(path + where)
    assert fragment in message
    assert "\n" not in message


def test_duplicate_judgement_names_both_places() -> None:
    with pytest.raises(
        DatasetError,
        match=r"<qrels>:3: .*'a' is judged twice for query 'q' "
        r"\(first on row 1\)",
    ):
        Qrels.from_rows([("q", "a", 1), ("q", "b", 1), ("q", "a", 1)])


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file"):
        read_run(tmp_path / "missing.txt")
    with pytest.raises(DatasetError, match="is a directory"):
        read_qrels(tmp_path)
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("q 0 caf\xe9 1\n".encode("latin-1"))
    with pytest.raises(DatasetError, match="not UTF-8"):
        read_qrels(latin1)
    fake_gz = tmp_path / "run.gz"
    fake_gz.write_text(CHAPTER_RUN)
    with pytest.raises(DatasetError, match="cannot read"):
        read_run(fake_gz)


# --- writing -----------------------------------------------------------------------------------
def test_write_run_round_trips_the_given_order(tmp_path: Path) -> None:
    # tied given scores would be reordered by trec_eval; rank-faithful scores keep the order
    rankings = {"q2": ["a", "b", "c"], "q1": ["z", "y10", "y9"], "q0": []}
    path = tmp_path / "run.txt"
    write_run(path, rankings, tag="sys1")
    assert path.read_text().splitlines()[:2] == ["q1 Q0 z 1 3 sys1", "q1 Q0 y10 2 2 sys1"]
    qrels = Qrels.from_rows(
        [(q, d, i + 1) for q, docs in rankings.items() for i, d in enumerate(docs)]
        + [("q0", "a", 1)]
    )
    back = gain_arrays(qrels, read_run(path))
    assert back.qids == ("q0", "q1", "q2")
    np.testing.assert_array_equal(back.gains, [[0, 0, 0], [1, 2, 3], [1, 2, 3]])


def test_write_run_with_scores(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    # a tie is fine when it is already in trec_eval order (docid descending)
    write_run(path, {"q": ["b", "a", "c"]}, {"q": [0.5, 0.5, 0.25]})
    assert path.read_text().splitlines() == [
        "q Q0 b 1 0.5 ragsweep",
        "q Q0 a 2 0.5 ragsweep",
        "q Q0 c 3 0.25 ragsweep",
    ]
    with pytest.raises(ValueError, match="would rank 'b' above 'a'"):
        write_run(path, {"q": ["a", "b"]}, {"q": [0.5, 0.5]})
    with pytest.raises(ValueError, match="would rank"):
        write_run(path, {"q": ["a", "b"]}, {"q": [0.1, 0.2]})
    with pytest.raises(ValueError, match="one finite score"):
        write_run(path, {"q": ["a", "b"]}, {"q": [0.1]})


@pytest.mark.parametrize(
    ("rankings", "tag"),
    [
        ({"q 1": ["a"]}, "t"),
        ({"q": ["a b"]}, "t"),
        ({"q": [""]}, "t"),
        ({"q": ["a"]}, "my tag"),
        ({"q": ["a", "a"]}, "t"),
    ],
)
def test_write_run_refuses_what_a_run_file_cannot_hold(
    tmp_path: Path, rankings: dict, tag: str
) -> None:
    with pytest.raises(ValueError):
        write_run(tmp_path / "run.txt", rankings, tag=tag)


# --- ragsweep score ----------------------------------------------------------------------------
@pytest.mark.parametrize(("gain", "ndcg"), [("exp", EXP_NDCG5), ("linear", LINEAR_NDCG5)])
def test_score_chapter_example_json(
    chapter: tuple[str, str], capsys: pytest.CaptureFixture[str], gain: str, ndcg: float
) -> None:
    qrels, run = chapter
    out, err = score_json(
        capsys,
        "--qrels",
        qrels,
        "--run",
        run,
        "--metrics",
        "recall@3,precision@3,MRR,nDCG@5",
        "--gain",
        gain,
    )
    assert err == ""
    expected = {"recall@3": 1 / 2, "precision@3": 1 / 3, "MRR": 1 / 2, "nDCG@5": ndcg}
    assert list(out) == ["aggregate", "per_query"]
    assert list(out["aggregate"]) == list(expected)  # names as the user gave them, in order
    assert list(out["per_query"]) == ["q1"]
    for values in (out["aggregate"], out["per_query"]["q1"]):
        for name, value in expected.items():
            assert values[name] == pytest.approx(value, abs=1e-12)
    assert round(out["aggregate"]["nDCG@5"], 6) == {"exp": 0.639909, "linear": 0.643322}[gain]


def test_score_table(chapter: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = chapter
    assert cli_main(["score", "--qrels", qrels, "--run", run]) == 0
    out = capsys.readouterr().out
    rows = {
        line.split()[0]: line.split()[1]
        for line in out.splitlines()
        if line.strip() and line.split()[0] in ("recall@10", "P@10", "RR", "nDCG@10", "unjudged@10")
    }
    assert rows == {
        "recall@10": "1.0000",
        "P@10": "0.2000",
        "RR": "0.5000",
        "nDCG@10": f"{EXP_NDCG5:.4f}",
        # c7, c4, c1 of the five ranked are not in the qrels: 3 of the top 10
        "unjudged@10": "0.3000",
    }
    assert "mean over the 1 qrels queries (0 missing from the run" in out


def test_score_at_relevance_level_2(
    chapter: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = chapter  # c2 (grade 2) at rank 2, c9 (grade 1) at rank 4
    args = ["--qrels", qrels, "--run", run, "--metrics", "AP,recall@5,P@5,RR,nDCG@5"]
    out, _ = score_json(capsys, *args, "--rel-level", "2")
    # only c2 is relevant at level 2; nDCG reads the grades at any level
    expected = {"AP": 1 / 2, "recall@5": 1.0, "P@5": 1 / 5, "RR": 1 / 2, "nDCG@5": EXP_NDCG5}
    assert out["aggregate"] == pytest.approx(expected, abs=1e-12)
    level_1, _ = score_json(capsys, *args)
    assert level_1["aggregate"]["AP"] == pytest.approx((1 / 2 + 2 / 4) / 2, abs=1e-12)
    assert cli_main(["score", *args, "--rel-level", "2"]) == 0
    assert "relevant: grade >= 2 for recall, P, RR and AP" in capsys.readouterr().out


def test_score_table_says_how_much_is_unjudged_when_not_asked(
    chapter: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = chapter
    assert cli_main(["score", "--qrels", qrels, "--run", run, "--metrics", "P@3"]) == 0
    out = capsys.readouterr().out
    # top 3 = c7 c2 c4: c7 and c4 unjudged
    assert "unjudged@3 0.6667: the share of the top passages the qrels do not judge" in out


def test_score_counts_missing_queries_and_notes_what_it_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = write(tmp_path, "qrels", CHAPTER_QRELS + "q2 0 x 1\nq3 0 y 0\n")
    run = write(tmp_path, "run", CHAPTER_RUN + "q1 Q0 c2 9 -1 demo\nzz Q0 x 1 1 demo\n")
    out, err = score_json(capsys, "--qrels", qrels, "--run", run, "--metrics", "RR")
    assert out["per_query"] == {"q1": {"RR": 0.5}, "q2": {"RR": 0.0}, "q3": {"RR": 0.0}}
    assert out["aggregate"]["RR"] == pytest.approx(0.5 / 3)
    assert "2 of 3 qrels queries have no line in the run" in err
    assert "1 run queries are not in the qrels and are ignored ('zz')" in err
    assert "1 run lines repeat a (qid, docid)" in err


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--metrics", "recall@0"], "cutoff must be a positive integer"),
        (["--metrics", "recall@10,ERR"], "unknown measure 'ERR'"),
        (["--metrics", "nDCG"], "needs a cutoff"),
        (["--rel-level", "0"], "relevance level (--rel-level, trec_eval's -l) must be an integer"),
        (["--rel-level", "-2"], "must be an integer >= 1, got -2"),
        (["--run", "FIVE"], ":2: 5 fields where at least 6 are expected"),
        (["--qrels", "FIVE"], ":2: 5 fields where 4 are expected"),
        (["--run", "missing.txt"], "missing.txt: no such file"),
        (["--qrels", "BAD"], ":2: field 'grade': 'two' is not an integer"),
        (["--run", "EMPTY"], "no query of the run is in"),
        (["--run", "OTHER"], "its queries are 'x1', 'x2'"),
        (["--qrels", "EMPTY"], "holds no judgements"),
    ],
)
def test_score_bad_input_exits_2_with_one_line(
    tmp_path: Path,
    chapter: tuple[str, str],
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    fragment: str,
) -> None:
    files = {
        "BAD": write(tmp_path, "bad.txt", "q1 0 c2 2\nq1 0 c9 two\n"),
        "EMPTY": write(tmp_path, "empty.txt", "\n"),
        "OTHER": write(tmp_path, "other.txt", "x1 Q0 a 1 1 t\nx2 Q0 a 1 1 t\n"),
        "FIVE": write(tmp_path, "five.txt", "# q1 Q0 c2 1\nq1 Q0 c2 1 0.5\n"),
    }
    qrels, run = chapter
    given = dict(zip(args[::2], [files.get(v, v) for v in args[1::2]], strict=True))
    argv = ["score", "--qrels", given.get("--qrels", qrels), "--run", given.get("--run", run)]
    for option in ("--metrics", "--rel-level"):
        if option in given:
            argv += [option, given[option]]
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ragsweep score: error: ")
    assert fragment in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["--run", "r.txt"],
        ["--qrels", "q", "--run", "r", "--gain", "exponential"],
        ["--qrels", "q", "--run", "r", "--format", "csv"],
    ],
)
def test_score_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["score", *argv]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()  # one line, no usage block
    assert line.startswith("ragsweep score: error: ") and "`ragsweep score --help`" in line


def test_score_in_a_subprocess_without_heavy_imports(chapter: tuple[str, str]) -> None:
    qrels, run = chapter
    code = (
        "import json, sys\n"
        "from ragsweep.cli import main\n"
        f"rc = main(['score', '--qrels', {qrels!r}, '--run', {run!r}, '--format', 'json'])\n"
        "heavy = sorted(m for m in ('mlflow', 'pandas', 'torch', 'hydra', 'sklearn')"
        " if m in sys.modules)\n"
        "print(json.dumps({'rc': rc, 'heavy': heavy}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report == {"rc": 0, "heavy": []}
    assert json.loads(done.stdout)["aggregate"]["nDCG@10"] == pytest.approx(EXP_NDCG5)

    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragsweep.cli",
            "score",
            "--qrels",
            qrels,
            "--run",
            run,
            "--metrics",
            "P@0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "positive integer" in bad.stderr
