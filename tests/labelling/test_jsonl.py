"""JSON Lines files (ragsweep.labelling.jsonl): a query log and a label file refuse a bad line in
the same words, naming the line and never quoting it."""

from __future__ import annotations

import pytest

from ragsweep.errors import UserError
from ragsweep.labelling.graded import read_graded
from ragsweep.labelling.jsonl import json_objects
from ragsweep.labelling.logreader import read_log

SECRET = "Jane Doe 07700900123"


def test_blank_lines_are_skipped_and_lines_keep_their_numbers(tmp_path):
    text = '{"a": 1}\n\n  \n{"b": [2]}\n'
    assert json_objects(tmp_path / "f.jsonl", text) == [(1, {"a": 1}), (4, {"b": [2]})]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"a": 1}\n\n{"text": "' + SECRET + '", ',
         ":3: not valid JSON (column 34); write one JSON object a line"),
        ('{"a": 1}\n["' + SECRET + '"]\n',
         ":2: a list, not a JSON object; write one object a line"),
    ],
)  # fmt: skip
def test_a_log_and_a_label_file_refuse_a_bad_line_alike(tmp_path, content, message):
    messages = []
    for name, read in (("log.jsonl", lambda p: read_log(p, str)), ("labels.jsonl", read_graded)):
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        with pytest.raises(UserError) as info:
            read(path)
        messages.append(str(info.value).removeprefix(str(path)))
    assert messages == [message, message]
    assert not any(part in m for m in messages for part in SECRET.split())
