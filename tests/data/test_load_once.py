"""One pass over a dataset folder: each corpus file (and the questions and labels) is read once,
hashed and parsed from the same bytes; the result and the snapshot hash are those of reading
every file on its own, and a wording's bad JSON is reported as before."""

from __future__ import annotations

import builtins
import dataclasses
import gc
import hashlib
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from ragsweep.data import load as load_module
from ragsweep.data import load_dataset, snapshot_hash
from ragsweep.data.load import sample_path
from ragsweep.errors import DatasetError

TINY = Path(__file__).parents[1] / "fixtures" / "tiny"
PINNED = Path(__file__).parents[2] / "conf" / "data" / "sample.yaml"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return Path(shutil.copytree(TINY, tmp_path / "tiny"))


def reads_while(monkeypatch: pytest.MonkeyPatch, root: Path) -> Counter[str]:
    """Count the reads of each file below `root`, by POSIX path relative to it, through both
    ways the loader reads a file (`open` and `Path.read_bytes`)."""
    counts: Counter[str] = Counter()
    real_open, real_read_bytes = builtins.open, Path.read_bytes
    base = str(root.resolve())

    def note(path: object) -> None:
        text = str(Path(str(path)).resolve())
        if text.startswith(base + "/"):
            counts[text[len(base) + 1 :]] += 1

    def open_(file: object, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, str | Path) and "r" in mode:
            note(file)
        return real_open(file, mode, *args, **kwargs)

    def read_bytes(path: Path) -> bytes:
        note(path)
        return real_read_bytes.__get__(path)()  # not through open_: one read counted once

    monkeypatch.setattr(builtins, "open", open_)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    return counts


def test_a_load_reads_each_corpus_file_and_the_labelled_set_once(
    tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = reads_while(monkeypatch, tiny)
    ds = load_dataset(tiny)
    corpus = sorted(p.relative_to(tiny).as_posix() for p in (tiny / "corpus").iterdir())
    assert len(corpus) == len(ds.documents) >= 3
    for rel in [*corpus, "questions.jsonl", "labels.jsonl"]:
        assert counts[rel] == 1, rel
    counts.clear()
    again = load_dataset(tiny)  # validated already: the pass reads and hashes, nothing else
    assert again.snapshot_hash == ds.snapshot_hash
    assert set(counts.values()) == {1} and len(counts) == sum(
        1 for p in tiny.rglob("*") if p.is_file()
    )


def test_the_snapshot_hash_is_that_of_the_files_read_on_their_own(tiny: Path) -> None:
    lines = "".join(
        f"{p.name}\t{hashlib.sha256(p.read_bytes()).hexdigest()}\n"
        for p in sorted((tiny / "corpus").iterdir())
    )
    expected = hashlib.sha256(lines.encode()).hexdigest()
    assert load_dataset(tiny).snapshot_hash == snapshot_hash(tiny / "corpus") == expected


def test_the_samples_snapshot_hash_is_the_pinned_one() -> None:
    pinned = yaml.safe_load(PINNED.read_text(encoding="utf-8"))["sha256"]
    assert load_dataset().snapshot_hash == pinned == snapshot_hash(sample_path() / "corpus")


def test_one_pass_and_a_file_by_file_load_give_the_same_dataset() -> None:
    root = sample_path()
    one_pass = load_module._load(root, False, load_module._read_folder(root))
    by_file = load_module._load(root, False, None)
    assert one_pass.documents == by_file.documents
    assert len(one_pass.documents) == 30
    for field in ("snapshot_hash", "labels_hash", "meta", "slices", "relevance", "log_entries"):
        assert getattr(one_pass, field) == getattr(by_file, field), field
    for field in ("questions", "labels"):
        assert getattr(one_pass, field).equals(getattr(by_file, field)), field
    assert dataclasses.fields(one_pass) == dataclasses.fields(by_file)


def test_an_unreadable_wording_is_named(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tiny / "corpus" / "home@2025.json"
    real_open, real_read_bytes = builtins.open, Path.read_bytes

    def open_(file: object, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, str | Path) and Path(file) == victim:
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    def read_bytes(path: Path) -> bytes:
        if path == victim:
            raise PermissionError(13, "Permission denied")
        return real_read_bytes(path)

    monkeypatch.setattr(builtins, "open", open_)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    with pytest.raises(DatasetError) as caught:
        load_dataset(tiny)
    assert (caught.value.path, caught.value.line) == (str(victim), None)
    assert caught.value.detail == "cannot be read (Permission denied); check its permissions"


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        (
            '{"document": "home", "document": "home"}',
            "key 'document' appears twice in one object; keep one",
        ),
        ('{"document": NaN}', "invalid JSON: NaN is not valid JSON; use a number or null"),
        (
            '\ufeff{"document": "home"}',
            "invalid JSON at line 1 column 1: Unexpected UTF-8 BOM (decode using utf-8-sig); "
            "fix the JSON syntax",
        ),
        (
            '{"document": "home"} {}',
            "invalid JSON at line 1 column 22: Extra data; fix the JSON syntax",
        ),
        (
            '{"document": "home',
            "invalid JSON at line 1 column 14: Unterminated string starting at; "
            "fix the JSON syntax",
        ),
        ("[1]", "expected a JSON object, got a list"),
    ],
)
def test_a_wordings_bad_json_is_reported_as_before(tiny: Path, content: str, detail: str) -> None:
    (tiny / "corpus" / "home@2025.json").write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        load_dataset(tiny)
    assert caught.value.path == str(tiny / "corpus" / "home@2025.json")
    assert caught.value.detail == detail


def test_a_wording_read_in_the_pass_is_the_file_as_written(tiny: Path) -> None:
    wording = json.loads((tiny / "corpus" / "home@2025.json").read_text(encoding="utf-8"))
    wording["title"] = "Home \u00a3 policy"
    (tiny / "corpus" / "home@2025.json").write_text(
        json.dumps(wording, ensure_ascii=False, indent=1) + "\n  \n", encoding="utf-8"
    )
    doc = next(d for d in load_dataset(tiny).documents if d.doc_id == "home@2025")
    assert doc.title == "Home \u00a3 policy" and doc.text.startswith("Home \u00a3 policy\n\n")


@pytest.mark.parametrize("enabled", [True, False])
def test_the_garbage_collectors_state_is_restored_after_a_load(tiny: Path, enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        assert len(load_dataset(tiny).documents) == 4
        assert gc.isenabled() is enabled
        (tiny / "labels.jsonl").write_text("{}\n", encoding="utf-8")
        with pytest.raises(DatasetError):
            load_dataset(tiny)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
