"""Reading a raw query log (ragsweep.labelling.logreader): JSONL and CSV with custom field names,
scrubbed first; bad input is one line naming the line and field, never the text."""

from __future__ import annotations

import json
import re

import pytest
from sample_logs import SLICES, scrub, write_jsonl

from ragsweep.errors import UserError
from ragsweep.labelling.logreader import read_log
from ragsweep.labelling.sampling import render_summary, sample_log
from ragsweep.labelling.slicerules import UNKNOWN


def test_jsonl_and_csv_with_custom_field_names_scrub_first(tmp_path):
    rows = [
        {
            "when": "2025-02-01T10:00:00+01:00",
            "question": "Is my bike covered? me@x.org",
            "cat": "",
        },
        {"when": "2025-02-02", "question": "what is the excess", "cat": "limits"},
    ]
    jsonl = write_jsonl(tmp_path / "log.jsonl", rows)
    csv_path = tmp_path / "log.csv"
    csv_path.write_text(
        "question,cat,when\n"
        '"Is my bike covered? me@x.org",,2025-02-01T10:00:00+01:00\n'
        "what is the excess,limits,2025-02-02\n",
        encoding="utf-8",
    )
    for path in (jsonl, csv_path):
        got = read_log(
            path, scrub, text_field="question", ts_field="when", slice_field="cat",
            known_slices=SLICES,
        )  # fmt: skip
        assert [e.text for e in got] == ["Is my bike covered? <EMAIL>", "what is the excess"]
        assert [e.slice for e in got] == [UNKNOWN, "limits"]
        assert [e.ts.isoformat() for e in got] == [
            "2025-02-01T09:00:00+00:00",
            "2025-02-02T00:00:00+00:00",
        ]
        assert [e.line for e in got] == [1, 2] if path == jsonl else [2, 3]
    r = sample_log(jsonl, scrub, text_field="question", ts_field="when", slice_field="cat")
    assert [(row.slice, row.text) for row in r.rows] == [("limits", "what is the excess")]
    assert r.unknown == 1  # the empty slice column is unknown, not classified
    assert "me@x.org" not in repr(r) + render_summary(r)


SECRET = "Jane Doe 07700900123 jane@example.com"


@pytest.mark.parametrize(
    ("suffix", "content", "kw", "expected"),
    [
        (".jsonl", '{"text": "ok", "ts": "2025-01-01"}\n{"text": "' + SECRET + '", "ts": ',
         {}, r"log.jsonl:2: not valid JSON \(column \d+\)"),
        (".jsonl", json.dumps({"body": SECRET, "ts": "2025-01-01"}) + "\n", {},
         r"log.jsonl:1: field 'text': missing; name the question field with --text-field"),
        (".jsonl", json.dumps({"text": SECRET, "ts": SECRET}) + "\n", {},
         r"log.jsonl:1: field 'ts': missing or not an ISO 8601 timestamp"),
        (".jsonl", json.dumps({"text": SECRET, "ts": "2025-01-01", "s": SECRET}) + "\n",
         {"slice_field": "s", "known_slices": SLICES}, r"log.jsonl:1: field 's': not one of"),
        (".jsonl", json.dumps({"text": 5, "ts": "2025-01-01"}) + "\n", {},
         r"log.jsonl:1: field 'text': a number, not a string"),
        (".csv", f"text,ts\n{SECRET},2025-01-01\n", {"ts_field": "when"},
         r"log.csv:1: no column 'when' \(columns: text, ts\); name the column with --ts-field"),
        (".csv", f"text,ts\n{SECRET},not a date\n", {},
         r"log.csv:2: field 'ts': missing or not an ISO 8601"),
        (".txt", SECRET, {}, r"log.txt: unknown log format '.txt'; give a .jsonl or .csv file"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_naming_line_and_field_never_the_text(
    tmp_path, suffix, content, kw, expected
):
    path = tmp_path / f"log{suffix}"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError) as info:
        read_log(path, scrub, **kw)
    message = str(info.value)
    assert re.search(expected, message), message
    assert "\n" not in message
    for part in SECRET.split():
        assert part not in message
