"""Pooling for judges: the union of each system's top-depth clauses (checked against each system's
own `evaluate` output), best ranks, existing grades, TREC run systems and their errors, the
judging sheet's round trip through pandas, and determinism."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from ragsweep.config import compose as compose_with_hydra
from ragsweep.data import load_dataset
from ragsweep.errors import UserError
from ragsweep.labelling.pool import Pool, pool, write_sheet
from ragsweep.labelling.sheet_columns import SHEET_COLUMNS
from toy import SMALL_CHUNKS, TINY, TOY

#: 16-word chunks, so a question's product/version filter leaves up to 9 candidates and the top
#: 4 is a real cut (evaluate's per-question `clauses` column holds the top 10)
BASE = [*TOY, *SMALL_CHUNKS, "cache.dir=null"]
DEPTH = 4
SYSTEMS = {"bm25": ["retriever=bm25"], "dense": ["retriever=dense"]}


def _labels(root: Path) -> dict[tuple[str, str], int]:
    """(qid, clause id) -> grade, read straight from labels.jsonl."""
    out = {}
    for line in (root / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            out[(r["qid"], f"{r['document']}/{r['section']}@{r['version']}")] = r["grade"]
    return out


def _clause_ids(rows: pd.DataFrame) -> list[str]:
    return [
        f"{d}/{s}@{v}"
        for d, s, v in zip(rows["document"], rows["section"], rows["clause_version"], strict=True)
    ]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def toy_pool() -> Pool:
    return pool(BASE, SYSTEMS, depth=DEPTH)


@pytest.fixture(scope="module")
def expected() -> dict[str, dict[str, dict[str, int]]]:
    """system -> qid -> clause id -> best rank, from each system's own per_question frame."""
    from ragsweep.config import compose
    from ragsweep.scoring.evaluate import evaluate

    out: dict[str, dict[str, dict[str, int]]] = {}
    for name, overrides in SYSTEMS.items():
        result = evaluate(compose([*BASE, *overrides]))
        # the full rankings are deeper than DEPTH: the pool really cuts them
        assert max(len(r) for r in result.rankings.values()) > DEPTH
        per_q: dict[str, dict[str, int]] = {}
        pq = result.per_question
        for qid, covered in zip(pq["qid"], pq["clauses"], strict=True):
            lists = json.loads(covered)[:DEPTH]
            best: dict[str, int] = {}
            for rank, clause_ids in enumerate(lists, start=1):
                for cid in clause_ids:
                    best.setdefault(cid, rank)
            per_q[qid] = best
        out[name] = per_q
    return out


def test_pool_is_the_union_of_each_systems_top_depth_clauses(toy_pool, expected) -> None:
    rows = toy_pool.rows
    assert list(rows.columns) == list(SHEET_COLUMNS)
    assert toy_pool.systems == ("bm25", "dense")
    qids = sorted(expected["bm25"])
    assert len(qids) == 10  # nothing held out in TOY: every question pooled
    got = {q: _clause_ids(rows[rows["qid"] == q]) for q in qids}
    for q in qids:
        union = set(expected["bm25"][q]) | set(expected["dense"][q])
        assert len(got[q]) == len(set(got[q]))  # de-duplicated at clause level
        assert set(got[q]) == union
    # the systems disagree somewhere, so the union is more than either system
    assert any(set(expected["bm25"][q]) != set(expected["dense"][q]) for q in qids)


def test_best_ranks_and_systems_column(toy_pool, expected) -> None:
    hits = toy_pool.hits
    for name in SYSTEMS:
        mine = hits[hits["system"] == name]
        got: dict[str, dict[str, int]] = {}
        for q, c, r in zip(mine["qid"], mine["clause_id"], mine["rank"], strict=True):
            got.setdefault(q, {})[c] = int(r)
        assert got == {q: v for q, v in expected[name].items() if v}
    rows = toy_pool.rows
    for q, cid, text in zip(rows["qid"], _clause_ids(rows), rows["systems"], strict=True):
        pairs = sorted((expected[s][q][cid], s) for s in SYSTEMS if cid in expected[s][q])
        assert text == "; ".join(f"{s}@{r}" for r, s in pairs)


def test_rows_sorted_by_qid_best_rank_clause(toy_pool, expected) -> None:
    rows = toy_pool.rows
    keys = []
    for q, cid in zip(rows["qid"], _clause_ids(rows), strict=True):
        best = min(expected[s][q][cid] for s in SYSTEMS if cid in expected[s][q])
        keys.append((q, best, cid))
    assert keys == sorted(keys)


def test_existing_grades_and_stats(toy_pool, expected) -> None:
    labels = _labels(TINY)
    rows = toy_pool.rows
    for q, cid, grade in zip(rows["qid"], _clause_ids(rows), rows["existing_grade"], strict=True):
        if (q, cid) in labels:
            assert grade == labels[(q, cid)]
        else:
            assert pd.isna(grade)
    assert rows["existing_grade"].notna().sum() > 0
    for col in ("prelabel", "prelabel_source", "grade", "note", "judge"):
        assert (rows[col] == "").all()
    stats = toy_pool.stats.set_index("qid")
    for q in stats.index:
        union = set(expected["bm25"][q]) | set(expected["dense"][q])
        only_one = set(expected["bm25"][q]) ^ set(expected["dense"][q])
        relevant = {c for (qq, c), g in labels.items() if qq == q and g >= 1}
        assert stats.loc[q, "pool_size"] == len(union)
        assert stats.loc[q, "single_system"] == len(only_one)
        assert stats.loc[q, "unlabelled"] == sum((q, c) not in labels for c in union)
        assert stats.loc[q, "relevant_missed"] == len(relevant - union)
    summary = toy_pool.summary()
    assert summary["rows"] == len(rows)
    assert summary["unlabelled_share"] == pytest.approx(rows["existing_grade"].isna().mean())


def test_deterministic_whatever_the_system_order(toy_pool, tmp_path) -> None:
    again = pool(BASE, dict(reversed(list(SYSTEMS.items()))), depth=DEPTH)
    pd.testing.assert_frame_equal(again.rows, toy_pool.rows)
    pd.testing.assert_frame_equal(again.stats, toy_pool.stats)
    a = write_sheet(toy_pool, tmp_path / "a.csv").read_bytes()
    b = write_sheet(again, tmp_path / "b.csv").read_bytes()
    assert a == b


def test_trec_run_system_ranks_the_trec_eval_way(tmp_path) -> None:
    run = _write(
        tmp_path / "ext.run",
        [
            "q01 Q0 home/2.1@2025 1 3.0 ext",
            "q01 Q0 home/1.1@2025 2 2.0 ext",
            "q01 Q0 home/2.2@2025 3 2.0 ext",  # tie with 1.1: the larger id ranks first
            "q01 Q0 home/2.1@2025 4 1.0 ext",  # repeated: counted once, at its best
            "q03 Q0 home/3.2@2025 1 5.0 ext",
            "q09 Q0 home/2.1@2024 1 1.0 ext",  # not a pooled question: ignored
        ],
    )
    other = _write(tmp_path / "other.run", ["q01 Q0 home/1.1@2025 1 9 b"])
    p = pool(BASE, {"ext": run, "alt": other}, depth=2, questions=["q03", "q01"])
    rows = p.rows
    assert list(zip(rows["qid"], _clause_ids(rows), rows["systems"], strict=True)) == [
        ("q01", "home/1.1@2025", "alt@1"),
        ("q01", "home/2.1@2025", "ext@1"),
        ("q01", "home/2.2@2025", "ext@2"),
        ("q03", "home/3.2@2025", "ext@1"),
    ]
    # q01 has no label for home/1.1@2025 nor home/2.2@2025 (-1 here: empty in the sheet)
    assert rows["existing_grade"].fillna(-1).tolist() == [-1, 2, -1, 2]
    assert p.stats["pool_size"].tolist() == [3, 1]
    assert p.stats["unlabelled"].tolist() == [2, 0]


def test_bad_run_file_id_is_a_one_line_error(tmp_path) -> None:
    run = _write(
        tmp_path / "bad.run",
        ["q01 Q0 home/2.1@2025 1 3 x", "", "q01 Q0 home/9.9@2025 2 2 x", "q02 Q0 nope 1 1 x"],
    )
    with pytest.raises(UserError) as err:
        pool(BASE, {"ext": run})
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{run}:3: field 'docid': 'home/9.9@2025' is not a clause")
    assert "and 1 more" in msg and "document/section@version" in msg

    chunks = _write(tmp_path / "chunks.run", ["q01 Q0 home@2025#0 1 3 x"])
    with pytest.raises(UserError, match=r"chunks\.run:1: .*chunk id.*run_clauses\.txt") as err:
        pool(BASE, {"ext": chunks})
    assert "\n" not in str(err.value)

    elsewhere = _write(tmp_path / "elsewhere.run", ["x99 Q0 home/2.1@2025 1 3 x"])
    with pytest.raises(UserError, match="none of its 1 queries"):
        pool(BASE, {"ext": elsewhere})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"depth": 0}, "pool depth must be a positive"),
        ({"questions": ["q01", "q77"]}, "q77 are not questions"),
        ({"questions": "dev"}, "give None"),
        ({"systems": {"bm25": "retriever=bm25"}}, "give a list of overrides"),
        ({"systems": {"a b": ["retriever=bm25"]}}, "system name 'a b'"),
        ({"systems": {"x": ["retriever=bm25", "retriever.depth=3"]}}, "retriever.depth=4"),
        ({"systems": {"x": ["data.split.salt=other"]}}, "overrides the dataset"),
    ],
)
def test_bad_arguments_are_user_errors(kwargs, message) -> None:
    args = {"systems": SYSTEMS, "depth": DEPTH, **kwargs}
    with pytest.raises(UserError, match=message):
        pool(BASE, args.pop("systems"), **args)


def test_base_as_folder_or_composed_config(tmp_path) -> None:
    run = _write(tmp_path / "r.run", ["q03 Q0 home/3.2@2025 1 1 x", "q10 Q0 motor/2.1@2025 1 1 x"])
    by_list = pool(BASE, {"r": run}, questions="all")
    by_folder = pool(TINY, {"r": run}, questions="all")
    by_cfg = pool(compose_with_hydra(BASE, hydra=True), {"r": run}, questions="all")
    assert len(by_list.stats) == 10
    assert by_list.rows["qid"].tolist() == ["q03", "q10"]
    pd.testing.assert_frame_equal(by_folder.rows, by_list.rows)
    pd.testing.assert_frame_equal(by_cfg.rows, by_list.rows)
    with pytest.raises(UserError, match="hydra node"):
        pool(compose_with_hydra(BASE), {"r": run})


def test_sheet_round_trips_with_commas_quotes_and_newlines(tmp_path) -> None:
    data = tmp_path / "tiny"
    shutil.copytree(TINY, data)
    wording = data / "corpus" / "home@2025.json"
    doc = json.loads(wording.read_text(encoding="utf-8"))
    clause = doc["parts"][1]["clauses"][0]
    assert clause["section"] == "2.1"
    clause["heading"] = 'Valuables, "high risk"'
    clause["text"] = 'We pay "up to" £2,000,\neach item;\r\n\n  in total, £6,000.\u2028End'
    wording.write_text(json.dumps(doc), encoding="utf-8")
    run = _write(tmp_path / "r.run", ["q01 Q0 home/2.1@2025 1 2 x", "q01 Q0 home/1.1@2025 2 1 x"])
    p = pool(data, {"r": run}, questions=["q01"])
    sheet = write_sheet(p, tmp_path / "out" / "sheet.csv")

    raw = sheet.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 byte-order mark, for Excel
    lines = raw.decode("utf-8-sig").split("\r\n")
    assert lines[-1] == "" and len(lines) - 1 == len(p.rows) + 1  # one physical line per row
    assert all(line.startswith('"') and line.endswith('"') for line in lines[:-1])

    back = pd.read_csv(sheet, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    assert list(back.columns) == list(SHEET_COLUMNS)
    assert back.shape == (2, len(SHEET_COLUMNS))
    assert back.loc[0, "clause_text"] == (
        'Valuables, "high risk" ¶ We pay "up to" £2,000, ¶ each item; ¶ in total, £6,000. ¶ End'
    )
    assert back["clause_text"].tolist() == p.rows["clause_text"].tolist()
    assert back["existing_grade"].tolist() == ["2", ""]
    assert back["systems"].tolist() == ["r@1", "r@2"]
    assert back[["qid", "section", "clause_version", "version"]].values.tolist() == [
        ["q01", "2.1", "2025", "2025"],
        ["q01", "1.1", "2025", "2025"],
    ]
    # pandas' default reading strips the mark too, and csv sees the same rows
    assert list(pd.read_csv(sheet, dtype=str).columns) == list(SHEET_COLUMNS)
    with sheet.open(encoding="utf-8-sig", newline="") as fh:
        assert [len(r) for r in csv.reader(fh)] == [len(SHEET_COLUMNS)] * 3


def test_pool_ranked_keeps_only_unjudged_pairs_once_each() -> None:
    """Rankings already made (a logged sweep's): a pair labelled with any grade, 0 included, is
    left out; a pair two systems rank is one row naming both; stats count the kept pairs."""
    from ragsweep.data import load_dataset
    from ragsweep.labelling.pool import pool_ranked
    from ragsweep.labelling.pool_systems import top_clauses

    ds = load_dataset(TINY)
    per_q = pd.DataFrame(
        {
            "qid": ["q03", "q04"],
            # q03: 2.1 is labelled 0, 3.2 labelled 2, 1.1 unlabelled; q04: 1.1 labelled 0
            "clauses": [
                json.dumps([["home/2.1@2025"], ["home/1.1@2025", "home/3.2@2025"], []]),
                json.dumps([["motor/1.1@2024"], ["motor/2.1@2024"], ["motor/4.1@2024"]]),
            ],
        }
    )
    a = top_clauses(per_q, 2)
    assert a == {
        "q03": {"home/2.1@2025": 1, "home/1.1@2025": 2, "home/3.2@2025": 2},
        "q04": {"motor/1.1@2024": 1, "motor/2.1@2024": 2},
    }
    b = {"q03": {"home/1.1@2025": 1}, "q04": {"motor/4.1@2024": 3}}
    p = pool_ranked(ds, {"a": a, "b": b}, 3, unjudged_only=True)
    assert set(zip(p.rows["qid"], _clause_ids(p.rows), strict=True)) == {
        ("q03", "home/1.1@2025"),
        ("q04", "motor/2.1@2024"),
        ("q04", "motor/4.1@2024"),
    }
    assert list(p.rows["systems"]) == ["b@1; a@2", "a@2", "b@3"]
    assert p.rows["existing_grade"].isna().all()
    assert p.hits.groupby("system").size().to_dict() == {"a": 2, "b": 2}
    assert p.stats.set_index("qid")["pool_size"].to_dict() == {"q03": 1, "q04": 2}
    assert p.stats.set_index("qid")["relevant_missed"].to_dict() == {"q03": 0, "q04": 1}
    with pytest.raises(UserError, match="not clauses of"):
        pool_ranked(ds, {"a": {"q03": {"home/9.9@2025": 1}}}, 1)
    with pytest.raises(UserError, match="not in"):
        pool_ranked(ds, {"a": {"q99": {"home/1.1@2025": 1}}}, 1)


def test_clauses_of_one_text_are_one_row_on_the_clause_of_the_questions_own_version(
    tmp_path,
) -> None:
    # motor/4.1 and motor/1.1 read the same in 2024 and 2025; q06 asks about motor 2025
    run = _write(
        tmp_path / "run.txt",
        [
            "q06 Q0 motor/4.1@2024 1 9.0 prod",
            "q06 Q0 motor/1.1@2025 2 8.0 prod",
            "q06 Q0 motor/4.1@2025 3 7.0 prod",
            "q06 Q0 motor/2.1@2025 4 6.0 prod",
        ],
    )
    done = pool(BASE, {"prod": run}, depth=4, questions=["q06"])
    rows = done.rows
    assert _clause_ids(rows) == ["motor/4.1@2025", "motor/1.1@2025", "motor/2.1@2025"]
    assert list(rows["same_text_clauses"]) == ["motor/4.1@2024", "", ""]
    assert list(rows["systems"]) == ["prod@1", "prod@2", "prod@4"]  # the best rank of the text
    assert list(done.stats["collapsed"]) == [1]
    assert (done.summary()["rows"], done.summary()["collapsed"]) == (3.0, 1.0)
    back = pd.read_csv(write_sheet(done, tmp_path / "s.csv"), dtype=str, keep_default_na=False)
    assert list(back["same_text_clauses"]) == ["motor/4.1@2024", "", ""]
    from ragsweep.labelling.sheetfile import read_sheet

    book = read_sheet(write_sheet(done, tmp_path / "s.xlsx"), dataset=load_dataset(TINY))
    assert list(book.rows["same_text_clauses"]) == ["motor/4.1@2024", "", ""]
