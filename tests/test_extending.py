"""docs/extending.md, run: its code blocks are written out as the user's `mystages.py` in a
fresh working folder, each example class is checked against its stage's rules with values
worked out by hand, and every command line of the page is planned (one factor, what the
configurations share) and evaluated; the retriever sweep runs through the CLI in Hydra's
worker processes. Then what a user's class meets: the one-factor rule on its parameters, one
line naming the class and the fix for a broken one, new cache keys when its file is edited, and
a process reused from another folder importing this folder's module."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import cli_in
from ragsweep.config import check_protocol, compose, use_working_folder
from ragsweep.errors import UserError
from ragsweep.retrieval.base import Ranked
from ragsweep.retrieval.pipeline import Pipeline
from toy import SMALL_CHUNKS, TINY, TOY

PAGE = Path(__file__).parents[1] / "docs" / "extending.md"


def page_module() -> str:
    """The page's `mystages.py`: its python blocks that start `# mystages.py`, in order."""
    blocks = re.findall(r"```python\n(# mystages\.py.*?)```", PAGE.read_text(), re.S)
    assert len(blocks) == 6, "the head and one block per stage kind"
    return "\n\n".join(blocks)


def page_commands() -> list[list[str]]:
    """The `ragsweep ...` lines of the page's "Running and sweeping them" block, as argv."""
    section = PAGE.read_text().split("### Running and sweeping them", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None
    lines = [line for line in block[1].splitlines() if line.startswith("ragsweep ")]
    return [shlex.split(line, comments=True)[1:] for line in lines]


@pytest.fixture
def stages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A working folder holding the page's mystages.py, current and importable; the module."""
    (tmp_path / "mystages.py").write_text(page_module())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    use_working_folder(tmp_path)
    import mystages

    assert Path(mystages.__file__).parent == tmp_path.resolve()
    return mystages


# ------------------------------------------------------------------- the worked examples


def test_each_example_obeys_its_protocol(stages):
    from ragsweep.chunking import Chunker
    from ragsweep.retrieval.base import Embedder, Fusion, Reranker, Retriever

    pairs = [
        (stages.SentenceChunker(), Chunker),
        (stages.CharNgramRetriever(), Retriever),
        (stages.HashingEmbedder(), Embedder),
        (stages.WeightedRRF(), Fusion),
        (stages.TermDensityReranker(), Reranker),
    ]
    for obj, protocol in pairs:
        check_protocol(obj, protocol, type(obj).__name__)  # raises on a broken one
        json.dumps(obj.fingerprint())


def test_the_sentence_chunker_cuts_whole_sentences_with_the_spans_of_the_text(stages):
    from ragsweep.data import load_dataset

    chunker = stages.SentenceChunker(size=20, overlap=6)
    for doc in load_dataset(TINY).documents:
        chunks = chunker.chunk(doc)
        assert [c.chunk_id for c in chunks] == [f"{doc.doc_id}#{i}" for i in range(len(chunks))]
        for c in chunks:
            assert c.text == doc.text[c.start : c.end] and c.doc_id == doc.doc_id
        starts = [c.start for c in chunks]
        assert starts == sorted(set(starts))  # every chunk moves on
        assert chunks[-1].end == len(doc.text.rstrip())
    toy = type("Doc", (), {"doc_id": "d@1", "document": "d", "version": "1", "product": None})
    toy.text = "One two three. Four five. Six seven eight nine. Ten."
    spans = [c.text for c in stages.SentenceChunker(size=5, overlap=2).chunk(toy)]
    # at most 5 words; the next chunk repeats the last sentence when it has <= 2 words
    assert spans == ["One two three. Four five.", "Four five.", "Six seven eight nine. Ten."]
    assert [c.text for c in stages.SentenceChunker(size=5, overlap=0).chunk(toy)] == [
        "One two three. Four five.",
        "Six seven eight nine. Ten.",
    ]


def test_the_char_ngram_retriever_finds_codes_and_follows_the_filter(stages):
    texts = [
        "Endorsement END-HM-07 amends form HM-PW-2025/01.",
        "Endorsement END-HM-08 amends form HM-PW-2024/01.",
        "For escape of water claims the excess is 500.",
    ]
    r = stages.CharNgramRetriever(n=3)
    r.index(texts)
    ranked = r.search(["what does end-hm-07 change", "water excess", "zz"], 3)
    assert isinstance(ranked, Ranked)
    assert ranked.ids[0, :2].tolist() == [0, 1] and ranked.ids[1, 0] == 2
    assert ranked.ids[2].tolist() == [-1, -1, -1]  # no n-gram in common: padding
    # the filter drops the disallowed from the full ranking, and rescores nothing
    query = ["end-hm-07 and the water excess"]
    full = r.search(query, 3)
    assert sorted(full.ids[0].tolist()) == [0, 1, 2]
    only = r.search(query, 3, [np.array([1, 2])])
    kept = [(i, s) for i, s in zip(full.ids[0], full.scores[0], strict=True) if i in (1, 2)]
    assert list(zip(only.ids[0][:2], only.scores[0][:2], strict=True)) == kept
    assert only.ids[0, 2] == -1
    other = stages.CharNgramRetriever(n=4)
    other.index(texts)
    assert other.search(["water excess"], 1).scores[0, 0] != ranked.scores[1, 0]


def test_the_hashing_embedder_gives_unit_rows_and_zero_for_no_word(stages):
    emb = stages.HashingEmbedder(dim=64)
    out = emb.encode(["water excess", "", "Water, excess!"])
    assert out.dtype == np.float32 and out.shape == (3, 64)
    assert np.isclose(np.linalg.norm(out[0]), 1.0) and not out[1].any()
    assert out[0].tobytes() == out[2].tobytes()  # the same words, the same vector
    assert np.count_nonzero(out[0]) == 2 and np.allclose(np.abs(out[0][out[0] != 0]), 0.5**0.5)


def test_weighted_rrf_follows_its_formula(stages):
    def ranked(rows):
        ids = np.array(rows, dtype=np.int64)
        scores = np.where(ids >= 0, -np.arange(ids.shape[1], dtype=np.float64), -np.inf)
        return Ranked(ids, scores)

    lists = [ranked([[0, 1, -1]]), ranked([[1, 2, -1]])]
    # k=1, first list weight 4: d0 = 4/2 = 2, d1 = 4/3 + 1/2, d2 = 1/3
    out = stages.WeightedRRF(k=1, first_weight=4).fuse(lists, 4)
    assert out.ids.tolist() == [[0, 1, 2, -1]]
    np.testing.assert_allclose(out.scores[0, :3], [2.0, 4 / 3 + 1 / 2, 1 / 3], rtol=1e-15)
    # weight 1 is plain RRF: d1 is in both lists and comes first
    plain = stages.WeightedRRF(k=1, first_weight=1).fuse(lists, 3)
    assert plain.ids.tolist() == [[1, 0, 2]]
    np.testing.assert_allclose(plain.scores[0], [1 / 3 + 1 / 2, 1 / 2, 1 / 3], rtol=1e-15)


def test_the_term_density_reranker_follows_its_formula(stages):
    texts = ["water excess is 500 for escape of water claims", "the excess", "water excess"]
    candidates = Ranked(np.array([[0, 1, 2]]), np.array([[3.0, 2.0, 1.0]]))
    # alpha 1: share of the 2 query words over the passage's words: 2/2/9, 1/2/2, 2/2/2
    out = stages.TermDensityReranker(alpha=1).rerank(["Water excess?"], texts, candidates, 3)
    assert out.ids.tolist() == [[2, 1, 0]]
    np.testing.assert_allclose(out.scores[0], [1 / 2, 1 / 4, 1 / 9], rtol=1e-15)
    # alpha 0: the share alone; passages 0 and 2 tie at 1 and keep the first-stage order
    flat = stages.TermDensityReranker(alpha=0).rerank(["Water excess?"], texts, candidates, 3)
    assert flat.ids.tolist() == [[0, 2, 1]]
    # depth 1 rescores only the first candidate: the others stay below it in their order
    head = stages.TermDensityReranker(alpha=1).rerank(["Water excess?"], texts, candidates, 1)
    assert head.ids.tolist() == [[0, 1, 2]]


# ------------------------------------------------------------- the page's command lines

#: what each sweep of the page varies, its baseline, and the stages its values share
EXPECTED = {
    "chunker.size": ("128", ["64", "128"], []),
    "retriever.grams.n": (
        "3",
        ["3", "4"],
        [
            "chunks",
            "bm25_index",
            "dense_index",
            "first_stage_bm25_index",
            "first_stage_dense_index",
        ],
    ),
    "retriever.dense.embedder.dim": ("256", ["64", "256"], ["chunks"]),  # dense alone
    "fusion.first_weight": (
        "1",
        ["1", "2"],
        [
            "chunks",
            "bm25_index",
            "dense_index",
            "first_stage_bm25_index",
            "first_stage_dense_index",
        ],
    ),
    "reranker.model.alpha": (
        "0",
        ["0", "1"],
        [
            "chunks",
            "bm25_index",
            "dense_index",
            "first_stage_bm25_index",
            "first_stage_dense_index",
            "fusion",
        ],
    ),
}


@pytest.mark.slow
def test_every_command_line_of_the_page_plans_one_factor_and_changes_the_ranking(stages):
    from ragsweep.experiment.plan import draft
    from ragsweep.retrieval.pipeline import shared_stages
    from ragsweep.scoring.evaluate import evaluate

    commands = page_commands()
    assert len(commands) == 1 + len(EXPECTED)
    single, sweeps = commands[0], commands[1:]
    pipe = Pipeline.from_config(compose([*TOY, *single]))
    assert sorted(pipe.first.retrievers) == ["bm25", "dense", "grams"]
    assert type(pipe.first.retrievers["grams"]).__module__ == "mystages"

    seen = set()
    for argv in sweeps:
        assert argv[0] == "-m"
        small = [] if "chunker.size=64,128" in argv else SMALL_CHUNKS
        plan = draft([*argv[1:], *TOY, *small, "cache.dir=null"])
        baseline, values, shared = EXPECTED[plan.factor]
        seen.add(plan.factor)
        assert (plan.baseline, plan.values) == (baseline, values), plan.factor
        pipes = [Pipeline.from_config(c) for c in plan.cfgs.values()]
        assert shared_stages(pipes, plan.dataset.snapshot_hash) == shared, plan.factor
        rankings = [evaluate(c, plan.dataset).rankings for c in plan.cfgs.values()]
        assert rankings[0] != rankings[1], f"{plan.factor}: both values rank alike on the toy"
    assert seen == set(EXPECTED)


@pytest.mark.slow
def test_a_sweep_of_a_users_parameter_runs_in_worker_processes(stages, tmp_path):
    (argv,) = [a for a in page_commands() if "+retriever.grams.n=3,4" in a]
    done = cli_in(tmp_path, *argv, *TOY, *SMALL_CHUNKS, "confirm.enabled=false").ok()
    by_value = done.store.by_value("sweep:retriever.grams.n")
    assert sorted(by_value) == ["3", "4"]
    assert by_value["3"].data.tags["ragsweep.baseline"] == "true"
    for value, run in by_value.items():
        assert run.data.params["retriever.grams.n"] == value
        assert run.data.params["retriever.grams._target_"] == "mystages.CharNgramRetriever"
        hits = set(run.data.tags["ragsweep.cache_hits"].split(","))
        # the stages the factor does not touch were built once, before the jobs
        assert {"chunks", "first_stage_bm25_index", "first_stage_dense_index"} <= hits
        assert "grams_index" not in hits
    cache = tmp_path / ".ragsweep_cache"
    assert len(list(cache.glob("*/grams_index/*.pkl"))) == 2
    assert len(list(cache.glob("*/bm25_index/*.pkl"))) == 1
    # both jobs ran in Hydra's joblib workers (hydra.launcher.n_jobs=2), which imported
    # mystages from this folder
    folder = re.search(r"baseline 3; folder (\S+)", done.out)
    assert folder is not None, done.out[:500]
    sweep_dir = Path(folder[1])
    pids = {json.loads(p.read_text())["pid"] for p in (sweep_dir / "progress").glob("*.json")}
    assert pids and os.getpid() not in pids


# --------------------------------------------------------------- what a user's class meets

LOOSE = '''
from mystages import CharNgramRetriever


class Labelled(CharNgramRetriever):
    """Takes a label its fingerprint leaves out: ragsweep cannot tell two labels apart."""

    def __init__(self, n: int = 3, label: str = "") -> None:
        super().__init__(n)
        self.label = label


class NoFingerprint:
    def index(self, texts):
        pass

    def search(self, queries, depth, allowed=None):
        pass


class NarrowSearch(CharNgramRetriever):
    def search(self, queries, depth):
        return super().search(queries, depth)


class ObjectInFingerprint(CharNgramRetriever):
    def fingerprint(self):
        return {"vectorizer": object()}


class ListFingerprint(CharNgramRetriever):
    def fingerprint(self):
        return ["n", self.n]
'''


def test_a_parameter_the_fingerprint_leaves_out_cannot_be_swept(stages, tmp_path):
    (tmp_path / "loose.py").write_text(LOOSE)
    done = cli_in(
        tmp_path, "-m", *TOY, "+retriever.mine._target_=loose.Labelled", "+retriever.mine.label=a,b"
    )
    assert done.code == 2
    (line,) = done.err.strip().splitlines()
    assert line.startswith("ragsweep: error: sweeping retriever.mine.label would change nothing")
    # its n is in the fingerprint: that one sweeps (planned here, not run)
    from ragsweep.experiment.plan import draft

    plan = draft([*TOY, "+retriever.mine._target_=loose.Labelled", "+retriever.mine.n=3,5"])
    assert (plan.factor, plan.values, plan.baseline) == ("retriever.mine.n", ["3", "5"], "3")


def test_a_broken_class_is_one_line_naming_it_and_the_fix(stages, tmp_path):
    (tmp_path / "loose.py").write_text(LOOSE)

    def error(cls: str) -> str:
        cfg = compose([*TOY, f"+retriever.mine._target_=loose.{cls}"])
        with pytest.raises(UserError) as err:
            Pipeline.from_config(cfg).stage_keys("s")
        assert "\n" not in str(err.value)
        return str(err.value)

    assert error("NoFingerprint") == (
        "config key retriever.mine builds a loose.NoFingerprint, which is not a Retriever: it "
        "has no method fingerprint; add def fingerprint(self) -> dict returning the parameters "
        "that change its results (a Retriever needs index(texts), search(queries, depth, "
        "allowed=None), fingerprint(); see docs/extending.md)"
    )
    assert error("NarrowSearch").startswith(
        "config key retriever.mine builds a loose.NarrowSearch, whose search(queries, depth) "
        "cannot be called as search(queries, depth, allowed) (too many positional arguments); "
        "define it as `def search(self, queries, depth, allowed=None)`"
    )
    assert error("ObjectInFingerprint").startswith(
        "loose.ObjectInFingerprint.fingerprint() must hold only JSON values"
    )
    assert "Object of type object is not JSON serializable" in error("ObjectInFingerprint")
    assert error("ListFingerprint").startswith(
        "loose.ListFingerprint.fingerprint() returned a list, not a dict"
    )
    assert "put nomodule.py (or a package nomodule/) in the folder you run ragsweep in" in (
        cli_in(tmp_path, *TOY, "+retriever.mine._target_=nomodule.Mine").err
    )
    # through the command line: exit 2 and that one line
    done = cli_in(tmp_path, *TOY, "+retriever.mine._target_=loose.NoFingerprint")
    assert done.code == 2
    assert done.err.strip().splitlines() == [f"ragsweep: error: {error('NoFingerprint')}"]


def test_editing_the_users_module_gives_its_stages_new_keys(stages, tmp_path):
    overrides = [*TOY, "+retriever.grams._target_=mystages.CharNgramRetriever"]
    before = Pipeline.from_config(compose(overrides)).stage_keys("s")
    assert before["grams_index"]["retriever"]["class"] == "mystages.CharNgramRetriever"
    path = tmp_path / "mystages.py"
    path.write_text(path.read_text().replace("scores <= 0", "scores <= 0.0"))
    use_working_folder(tmp_path)  # what every command does first: the file as it is now
    after = Pipeline.from_config(compose(overrides)).stage_keys("s")
    assert (
        after["grams_index"]["retriever"]["source"] != before["grams_index"]["retriever"]["source"]
    )
    assert after["bm25_index"] == before["bm25_index"]  # ragsweep's own stages: unchanged
    assert {k for k in before if after[k] != before[k]} == {
        "grams_index",
        "first_stage_grams_index",
        "fusion",
    }


def test_a_process_reused_from_another_folder_imports_this_folders_module(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    for folder, answer in ((first, 1), (second, 2)):
        folder.mkdir()
        (folder / "samename_stages.py").write_text(f"ANSWER = {answer}\n")
    try:
        use_working_folder(first)
        import samename_stages

        assert samename_stages.ANSWER == 1
        use_working_folder(second)  # a worker of an earlier sweep, now running this one
        import samename_stages

        assert samename_stages.ANSWER == 2
        assert str(first.resolve()) not in sys.path and str(second.resolve()) in sys.path
    finally:
        sys.modules.pop("samename_stages", None)
