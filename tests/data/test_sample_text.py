"""The sample's text as data (samplegen/texts.py and the YAML files beside it): the sources it
generates are the bytes they were when the text was Python, every phrase is on one line, the
files ship in the wheel, and a file that does not fit is refused in one line naming the entry.

`sample_sources.sha256` holds the sha256 of the corpus and the query log for seeds 0 and 1, made
before the text moved to YAML. A change meant to alter the sample refreshes it with
`PYTHONPATH=src python tests/data/test_sample_text.py` (and rebuilds the committed sample:
docs/sample.md, "How it is made").
"""

from __future__ import annotations

import copy
import fnmatch
import hashlib
import json
import tomllib
from pathlib import Path

import pytest

from ragsweep.data.samplegen import texts
from ragsweep.data.samplegen.generate import _json, jsonl_bytes
from ragsweep.data.samplegen.prose import FILLER
from ragsweep.data.samplegen.querylog import build_query_log
from ragsweep.data.samplegen.spec import KINDS, ClauseDef
from ragsweep.data.samplegen.wordings import PRODUCTS, build_corpus
from ragsweep.errors import UserError

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("sample_sources.sha256")
PACKAGE = ROOT / "src" / "ragsweep" / "data" / "samplegen"
DATA = (
    "home.yaml",
    "motor.yaml",
    "travel.yaml",
    "shared.yaml",
    "filler.yaml",
    "glosses.yaml",
    "derived.yaml",
    "questions.yaml",
    "querylog.yaml",
)


def sources(seed: int, log: bool) -> dict[str, str]:
    """sha256 of each corpus document (and of the query log if `log`) for `seed`, by name."""
    corpus = build_corpus(seed)
    out = {
        f"seed{seed}/corpus/{d}@{v}.json": hashlib.sha256(_json(doc)).hexdigest()
        for (d, v), doc in sorted(corpus.documents.items())
    }
    if log:
        entries = build_query_log(corpus, seed).entries
        out[f"seed{seed}/query_log.jsonl"] = hashlib.sha256(jsonl_bytes(entries)).hexdigest()
    return out


def golden() -> dict[str, str]:
    rows = [line.split() for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
    return {name: digest for digest, name in (r for r in rows if r and r[0] != "#")}


def test_the_seed_0_corpus_is_bit_identical_to_the_golden_hashes() -> None:
    fresh = sources(0, log=False)
    assert len(fresh) == 30  # 3 wordings and 12 derived documents, in 2 versions
    assert fresh == {k: v for k, v in golden().items() if k in fresh}


@pytest.mark.slow  # two corpora and query logs: about 5 s
def test_the_corpus_and_log_of_seeds_0_and_1_are_bit_identical_to_the_golden_hashes() -> None:
    assert {**sources(0, log=True), **sources(1, log=True)} == golden()


def test_the_products_are_read_from_their_yaml_files() -> None:
    assert [p.document for p in PRODUCTS] == ["home", "motor", "travel"]
    shared = texts.shared_clauses()
    for p in PRODUCTS:
        clauses = [c for part in p.parts for c in part.clauses]
        assert len(clauses) > 60
        # the shared clauses are the very objects of shared.yaml, not copies
        assert [c.key for c in clauses if c.key in shared] == [
            c.key for c in clauses if c is shared.get(c.key)
        ]
    assert len(shared) == 21


def _leaves(value: object) -> list[str]:
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_leaves(k), *_leaves(v))]
    if isinstance(value, list):
        return [t for v in value for t in _leaves(v)]
    return [value] if isinstance(value, str) else []


def test_every_template_and_sentence_is_one_line_grep_finds() -> None:
    for name in DATA:
        content = (PACKAGE / name).read_text(encoding="utf-8")
        for text in _leaves(texts.read(name)):
            quoted = json.dumps(text, ensure_ascii=False)[1:-1]  # as a "..." scalar spells it
            # no newline in it, so where the file holds it whole, one line holds it
            assert "\n" not in text and (text in content or quoted in content), (name, text[:40])
    motor = (PACKAGE / "motor.yaml").read_text(encoding="utf-8")
    assert "video <on Facebook|online> while you sort out the claim?" in motor


def test_every_part_kind_has_filler_sentences() -> None:
    assert sorted(FILLER) == sorted(KINDS)
    assert all(len(FILLER[kind]) >= 4 for kind in KINDS)


def test_the_data_files_ship_as_package_data() -> None:
    """pyproject's package-data globs take every data file of samplegen into the wheel (the
    slow packaging test builds one)."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    globs = [
        g
        for pkg, pats in tool["setuptools"]["package-data"].items()
        if pkg in ("*", "ragsweep.data.samplegen")
        for g in pats
    ]
    data = sorted(p.name for p in PACKAGE.iterdir() if p.is_file() and p.suffix != ".py")
    assert data == sorted(DATA)
    assert all(any(fnmatch.fnmatch(name, g) for g in globs) for name in data)


# --- a file that does not fit ---------------------------------------------------------------


def _broken(monkeypatch: pytest.MonkeyPatch, change) -> None:
    """`home.yaml` as read, changed by `change(data)`."""
    data = copy.deepcopy(texts.read("home.yaml"))
    change(data)
    real = texts.read
    monkeypatch.setattr(texts, "read", lambda name: data if name == "home.yaml" else real(name))


def _clause(data: dict, key: str) -> dict:
    return next(c for p in data["parts"] for c in p["clauses"] if c.get("key") == key)


def _set(key: str, field: str, value) -> object:
    return lambda data: _clause(data, key).__setitem__(field, value)


def _ask(key: str, field: str, value) -> object:
    return lambda data: _clause(data, key)["asks"][0].__setitem__(field, value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            _ask("lim.valuables", "slice", "limit"),
            "home.yaml: parts[3].clauses[3] (lim.valuables).asks[0]: slice: unknown slice"
            " 'limit'; use one of limits, exclusions, procedures, definitions, identifiers",
        ),
        (
            _set("lim.valuables", "fill", "six"),
            "home.yaml: parts[3].clauses[3] (lim.valuables).fill: expected a number, got text",
        ),
        (
            _set("lim.valuables", "heading", 60),
            "home.yaml: parts[3].clauses[3] (lim.valuables).heading: expected text, got a"
            " number; quote it",
        ),
        (
            _set("lim.valuables", "core", [{2024: "a", "2025": "b"}]),
            "home.yaml: parts[3].clauses[3] (lim.valuables).core[0] key 2024: expected text,"
            " got a number; quote it",
        ),
        (
            _set("lim.valuables", "headline", "x"),
            "home.yaml: parts[3].clauses[3] (lim.valuables): unknown field 'headline' (fields:"
            " key, heading, thing, core, fill, shared, versions, code_no, lay, asks, gloss)",
        ),
        (
            _ask("lim.valuables", "supports", ["lim.jewels"]),
            "home.yaml: parts[3].clauses[3] (lim.valuables).asks[0].supports: 'lim.jewels' is"
            " no clause of this product; write an existing key",
        ),
        (
            _ask("lim.valuables", "templates", ["How much <for|on rings?"]),
            "home.yaml: parts[3].clauses[3] (lim.valuables).asks[0]: templates: a <...|...>"
            " group is not closed; add the >",
        ),
        (
            _ask("lim.valuables", "facts", [9]),
            "home.yaml: parts[3].clauses[3] (lim.valuables): asks[0].facts: names a core"
            " sentence the clause does not have (3 of them, counted from 0)",
        ),
        (
            lambda data: data["parts"][0]["clauses"].__setitem__(0, {"include": "abt.nothing"}),
            "home.yaml: parts[0].clauses[0]: include: names no clause of shared.yaml; write one"
            " of its keys",
        ),
        (
            lambda data: data["values"].__setitem__("money_limit", ["£500"]),
            "home.yaml: values.money_limit: expected a list of 2 items, got 1",
        ),
        (
            lambda data: data["parts"][1].__setitem__("kind", "definition"),
            "home.yaml: parts[1]: kind: unknown kind 'definition'; use one of other, definitions,"
            " cover, limits, exclusions, claims, conditions",
        ),
        (
            lambda data: data["forms"].pop("2025"),
            "home.yaml: forms: give one entry per version, in order: 2024, 2025",
        ),
        (
            lambda data: data.pop("code"),
            "home.yaml: field 'code' is missing; add it",
        ),
    ],
)
def test_a_misfit_entry_is_refused_in_one_line_naming_it(monkeypatch, change, message) -> None:
    _broken(monkeypatch, change)
    with pytest.raises(UserError) as err:
        texts.product("home")
    assert str(err.value) == message


def test_a_table_of_the_wrong_shape_is_refused_in_one_line(monkeypatch) -> None:
    monkeypatch.setattr(texts, "read", lambda name: {"filler": {"cover": "One sentence."}})
    with pytest.raises(UserError) as err:
        texts.load("filler.yaml", "filler", dict[str, tuple[str, ...]])
    assert str(err.value) == "filler.yaml: filler.cover: expected a list, got text"
    with pytest.raises(UserError) as err:
        texts.load("filler.yaml", "product_filler", dict[str, tuple[str, ...]])
    assert str(err.value) == (
        "filler.yaml: product_filler: is missing; add it at the top level of the file"
    )


def test_yaml_that_does_not_parse_is_refused_with_its_line() -> None:
    with pytest.raises(UserError) as err:
        texts.parse("home.yaml", "document: home\ncode: [HM\n")
    assert str(err.value).startswith("home.yaml:3: not valid YAML (")
    assert str(err.value).endswith("); fix the syntax")


def test_a_versioned_sentence_names_only_known_versions() -> None:
    with pytest.raises(ValueError, match=r"core\[0\]: unknown version '2026'; use 2024, 2025"):
        ClauseDef("k", "Heading", "thing", ({"2026": "New."},))


if __name__ == "__main__":  # refresh the golden hashes after a change meant to alter the sample
    rows = {**sources(0, log=True), **sources(1, log=True)}
    GOLDEN.write_text(
        "# sha256 of the sample's generated sources (tests/data/test_sample_text.py; refresh:\n"
        "# PYTHONPATH=src python tests/data/test_sample_text.py)\n"
        + "".join(f"{digest}  {name}\n" for name, digest in sorted(rows.items())),
        encoding="utf-8",
    )
