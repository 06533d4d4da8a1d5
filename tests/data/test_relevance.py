"""relevance.md: the written relevance rule is a file of the dataset, part of the labelled-set
hash (only when present: folders without it keep the hash they had), checked by the loader and
the manifest, and shown by `ragsweep data check`."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from ragsweep import cli
from ragsweep.data import check_dataset, labels_hash, load_dataset, sample_path
from ragsweep.errors import DatasetError

TINY = Path(__file__).parents[1] / "fixtures" / "tiny"
#: the labelled-set hash of the tiny fixture as computed before relevance.md was part of the
#: schema (the unmodified `labels_hash`): it must never move
TINY_LABELS_HASH = "88d047a6a1a4342967901c74f838001a2bfc6c8c5494c23fa580b9066b3c3604"

RULE = (
    "# Relevance rule\n\n"
    "- 2: the clause answers the question on its own (the limit, with its amount).\n"
    "- 1: the clause supports an answer (a definition it depends on).\n"
    "- 0: judged, not relevant.\n"
)


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return Path(shutil.copytree(TINY, tmp_path / "tiny"))


def _parts(root: Path) -> tuple[bytes, bytes]:
    return (root / "questions.jsonl").read_bytes(), (root / "labels.jsonl").read_bytes()


def _manifest(root: Path) -> None:
    """MANIFEST.sha256 over every other file, computed independently of the loader."""
    files = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.name != "MANIFEST.sha256"
    )
    lines = [f"{hashlib.sha256((root / f).read_bytes()).hexdigest()}  {f}\n" for f in files]
    (root / "MANIFEST.sha256").write_text("".join(lines), encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# the hash


def test_without_the_rule_the_hash_is_the_one_it_always_was() -> None:
    q, lab = _parts(TINY)
    assert labels_hash(q, lab) == labels_hash(q, lab, None) == TINY_LABELS_HASH
    assert load_dataset(TINY).labels_hash == TINY_LABELS_HASH
    assert load_dataset(TINY).relevance is None


def test_the_sample_ships_its_rule_and_hashes_it() -> None:
    root = sample_path()
    q, lab = _parts(root)
    rule = (root / "relevance.md").read_bytes()
    ds = load_dataset(root)
    assert ds.labels_hash == labels_hash(q, lab, rule) != labels_hash(q, lab)
    assert "word for word the same" in ds.relevance  # how identical twins are graded


def test_the_rule_is_hashed_after_the_labels(tiny: Path) -> None:
    (tiny / "relevance.md").write_text(RULE, encoding="utf-8")
    q, lab = _parts(tiny)
    expected = hashlib.sha256(
        b"questions.jsonl\n" + q + b"labels.jsonl\n" + lab + b"relevance.md\n" + RULE.encode()
    ).hexdigest()
    ds = load_dataset(tiny)
    assert ds.labels_hash == labels_hash(q, lab, RULE.encode()) == expected
    assert ds.labels_hash != TINY_LABELS_HASH
    assert ds.relevance == RULE


def test_tightening_the_rule_changes_the_hash_and_removing_it_restores_it(tiny: Path) -> None:
    rule = tiny / "relevance.md"
    rule.write_text(RULE, encoding="utf-8")
    loose = load_dataset(tiny).labels_hash
    rule.write_text(RULE + "- A sub-limit is grade 2 only with its amount.\n", encoding="utf-8")
    tight = load_dataset(tiny).labels_hash
    rule.write_bytes(RULE.encode() + b"\n")  # one byte more is another rule too
    spaced = load_dataset(tiny).labels_hash
    assert len({loose, tight, spaced, TINY_LABELS_HASH}) == 4
    rule.unlink()
    assert load_dataset(tiny).labels_hash == TINY_LABELS_HASH


# ---------------------------------------------------------------------------------------------
# the loader and the manifest


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b" \n\n", "relevance.md: is empty; write the rule judges apply"),
        (b"grade 2 \xff\n", "relevance.md: is not UTF-8 (bad byte at offset 8)"),
    ],
)
def test_a_blank_or_non_utf8_rule_is_refused_on_one_line(
    tiny: Path, content: bytes, needle: str
) -> None:
    (tiny / "relevance.md").write_bytes(content)
    with pytest.raises(DatasetError) as err:
        load_dataset(tiny)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_a_rule_that_is_a_folder_is_refused(tiny: Path) -> None:
    (tiny / "relevance.md").mkdir()
    with pytest.raises(DatasetError, match=r"relevance\.md: is not a file"):
        load_dataset(tiny)


def test_a_manifest_must_list_the_rule_and_catches_an_edit_of_it(tiny: Path) -> None:
    _manifest(tiny)
    (tiny / "relevance.md").write_text(RULE, encoding="utf-8")
    with pytest.raises(
        DatasetError,
        match=r"relevance\.md is not listed; remove the file, or if it belongs there, run "
        r"`ragsweep data manifest ",
    ):
        load_dataset(tiny)
    _manifest(tiny)
    assert load_dataset(tiny).relevance == RULE
    (tiny / "relevance.md").write_text(RULE + "- tightened\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"sha256 of relevance\.md does not match"):
        load_dataset(tiny)


# ---------------------------------------------------------------------------------------------
# `ragsweep data check`


def _table_row(out: str, key: str) -> list[str]:
    """The words of the `data check` table's row for `key`."""
    return next(line.split() for line in out.splitlines() if line.split()[0] == key)


def test_check_shows_the_rule_digest_or_a_dash(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_dataset(tiny)["relevance_rule"] is None
    assert cli.main(["data", "check", str(tiny)]) == 0
    assert _table_row(capsys.readouterr().out, "relevance_rule") == ["relevance_rule", "-"]

    (tiny / "relevance.md").write_text(RULE, encoding="utf-8")
    digest = hashlib.sha256(RULE.encode()).hexdigest()[:12]
    stats = check_dataset(tiny)
    assert stats["relevance_rule"] == digest
    keys = list(stats)
    assert keys.index("review_questions") + 1 == keys.index("relevance_rule")
    assert cli.main(["data", "check", str(tiny), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["relevance_rule"] == digest
    assert cli.main(["data", "check", str(tiny)]) == 0
    assert _table_row(capsys.readouterr().out, "relevance_rule") == ["relevance_rule", digest]
