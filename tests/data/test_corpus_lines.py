"""A corpus of many wordings in `corpus/<name>.jsonl` (one wording object per line) loads into the
same documents as one `<document>@<version>.json` file per wording, and its problems are named by
file, line and field. (Its error cases, CLI included, are among tests/data/test_dataset.py's.)"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from ragsweep.data import load_dataset, snapshot_hash
from ragsweep.data.load import sample_path
from ragsweep.errors import DatasetError

TINY = Path(__file__).parents[1] / "fixtures" / "tiny"


def as_lines(source: Path, dest: Path, groups: dict[str, list[str]]) -> Path:
    """A copy of dataset `source` whose corpus files in each group are moved, in that order,
    into the lines of corpus/<group name> (without the manifest, which lists the old files)."""
    root = Path(shutil.copytree(source, dest))
    (root / "MANIFEST.sha256").unlink(missing_ok=True)
    for target, names in groups.items():
        lines = []
        for name in names:
            wording = json.loads((root / "corpus" / name).read_text(encoding="utf-8"))
            lines.append(json.dumps(wording, ensure_ascii=False) + "\n")
            (root / "corpus" / name).unlink()
        (root / "corpus" / target).write_text("".join(lines), encoding="utf-8")
    return root


def test_the_samples_wordings_as_lines_give_the_same_dataset(tmp_path: Path) -> None:
    sample = sample_path()
    names = sorted(p.name for p in (sample / "corpus").iterdir())
    # half in one file in reverse order, a few in another, the rest left as files
    root = as_lines(
        sample, tmp_path / "lines", {"most.jsonl": names[:15][::-1], "few.jsonl": names[15:18]}
    )
    by_file, by_line = load_dataset(sample), load_dataset(root)
    assert len(by_line.documents) == 30
    assert by_line.documents == by_file.documents
    assert by_line.labels.equals(by_file.labels) and by_line.questions.equals(by_file.questions)
    assert by_line.labels_hash == by_file.labels_hash
    # the snapshot is the files as they are: the same formula, over other files
    assert by_line.snapshot_hash == snapshot_hash(root / "corpus") != by_file.snapshot_hash
    files = sorted((root / "corpus").iterdir())
    assert len(files) == 30 - 18 + 2
    lines = "".join(f"{p.name}\t{hashlib.sha256(p.read_bytes()).hexdigest()}\n" for p in files)
    assert by_line.snapshot_hash == hashlib.sha256(lines.encode()).hexdigest()


def test_a_corpus_of_one_jsonl_file_loads(tmp_path: Path) -> None:
    names = sorted(p.name for p in (TINY / "corpus").iterdir())
    root = as_lines(TINY, tmp_path / "tiny", {"wordings.jsonl": names})
    assert [p.name for p in (root / "corpus").iterdir()] == ["wordings.jsonl"]
    assert load_dataset(root).documents == load_dataset(TINY).documents


@pytest.mark.parametrize(
    ("content", "line", "field", "detail"),
    [
        ("{}\n", 1, "document", "missing; add it"),
        ('{"document": "home"}\n', 1, "version", "missing; add it"),
        ("GOOD\n\nGOOD\n", 2, None, "blank line; JSON Lines files hold one object per line"),
        ("GOOD\n[1]\n", 2, None, "expected one JSON object per line, got a list"),
        (
            'GOOD\n{"document": "x", "document": "y"}\n',
            2,
            None,
            "key 'document' appears twice in one object; keep one",
        ),
        ("BADVERSION\n", 1, "version", "'20 25' is not a valid version"),
    ],
)
def test_a_bad_line_is_named_by_file_line_and_field(
    tmp_path: Path, content: str, line: int, field: str | None, detail: str
) -> None:
    root = Path(shutil.copytree(TINY, tmp_path / "tiny"))
    wording = json.loads((root / "corpus" / "home@2025.json").read_text(encoding="utf-8"))
    (root / "corpus" / "home@2025.json").unlink()
    (root / "MANIFEST.sha256").unlink(missing_ok=True)
    good = json.dumps(wording)
    bad_version = json.dumps({**wording, "version": "20 25"})
    text = content.replace("GOOD", good).replace("BADVERSION", bad_version)
    (root / "corpus" / "more.jsonl").write_text(text, encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        load_dataset(root)
    err = caught.value
    assert (err.path, err.line, err.field) == (str(root / "corpus" / "more.jsonl"), line, field)
    assert err.detail.startswith(detail)
