"""`replace_file`, the one way ragsweep writes a file in place: whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragsweep.data.write import replace_file


def test_bytes_text_and_a_writer_each_replace_the_file_whole(tmp_path):
    target = tmp_path / "deep" / "plan.json"
    replace_file(target, b"one")
    assert target.read_bytes() == b"one"
    replace_file(target, "två\n")
    assert target.read_text(encoding="utf-8") == "två\n"
    seen: list[Path] = []

    def write(path: Path) -> None:
        seen.append(path)
        path.write_text("three")

    replace_file(target, write)
    assert target.read_text() == "three"
    assert seen[0].suffix == ".json" and seen[0].parent == target.parent  # a workbook's suffix
    assert sorted(p.name for p in target.parent.iterdir()) == ["plan.json"]


def test_a_writer_that_fails_leaves_the_old_file_and_no_sibling(tmp_path):
    target = tmp_path / "sheet.xlsx"
    target.write_bytes(b"old")

    def half(path: Path) -> None:
        path.write_bytes(b"ha")
        raise OSError(28, "No space left on device", str(path))

    with pytest.raises(OSError):
        replace_file(target, half)
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.xlsx"]
