"""The slice rule classifier (ragsweep.labelling.slicerules): the built-in rules' precedence and
accuracy on the labelled questions, errors naming the file and field, a copy to edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sample_logs import SLICES

from ragsweep.errors import UserError
from ragsweep.labelling.slicerules import (
    UNKNOWN,
    classifier_accuracy,
    load_classifier,
    write_rules,
)

QUESTIONS = Path(__file__).parents[2] / "src/ragsweep/data/sample/questions.jsonl"


def test_default_classifier_precedence_and_accuracy_on_the_labelled_questions():
    c = load_classifier()
    assert c.slices == SLICES
    assert c.classify("My claim was rejected under EXC-MT-04. What does that exclusion say?") == (
        "identifiers"
    )
    assert c.classify("Can you explain section 4.11?") == "identifiers"
    assert c.classify("What does excess mean when I claim?") == "definitions"
    assert c.classify("How much notice do you give if you cancel my policy?") == "procedures"
    assert c.classify("What's the excess on my travel insurance?") == "limits"
    assert c.classify("Is nuclear contamination covered?") == "exclusions"
    assert c.classify("xyzzy") == UNKNOWN
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines()]
    acc = classifier_accuracy(c, [q["text"] for q in rows], [q["slice"] for q in rows])
    assert acc["all"].n == 400 and acc["all"].accuracy >= 0.9
    assert all(acc[s].accuracy >= 0.75 for s in SLICES)


def test_rules_file_errors_name_the_file_and_field(tmp_path):
    bad = tmp_path / "rules.yaml"
    bad.write_text("slices:\n  - name: limits\n    patterns: ['(unclosed']\n")
    with pytest.raises(UserError, match=r"rules.yaml: limits.patterns\[0\]: invalid regex"):
        load_classifier(bad)
    bad.write_text("slices:\n  - name: unknown\n")
    with pytest.raises(UserError, match=r"slices\[0\].name"):
        load_classifier(bad)


def test_write_rules_copies_the_built_in_rules_and_never_overwrites(tmp_path):
    out = write_rules(tmp_path / "rules" / "slices.yaml")
    assert (
        out.read_text()
        == (Path(__file__).parents[2] / "src/ragsweep/labelling/slices.yaml").read_text()
    )
    assert load_classifier(out).slices == SLICES
    with pytest.raises(UserError, match=r"slices.yaml: already exists; give another file name"):
        write_rules(out)
