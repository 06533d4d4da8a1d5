"""The draw of `labels sample` (ragsweep.labelling.sampling): scrubbing first, exact duplicates,
since, exclusion of the labelled set, the unknown bucket, the seeded stratified draw, clusters and
the summary."""

from __future__ import annotations

import hashlib
import json

import pytest
from sample_logs import SLICES, entries, scrub

from ragsweep.errors import UserError
from ragsweep.labelling.dedup_key import normalise
from ragsweep.labelling.logreader import LogEntry, parse_when
from ragsweep.labelling.sampling import (
    clusters_path,
    draw_sample,
    question_id,
    render_summary,
    write_clusters,
    zero_reasons,
)
from ragsweep.labelling.slicerules import UNKNOWN, load_classifier


def test_exact_duplicates_by_normalised_text_keep_the_earliest():
    log = [
        LogEntry(1, "Is my bike covered?", parse_when("2025-03-01T10:00:00Z"), None),
        LogEntry(2, "is my   bike covered", parse_when("2025-02-01T10:00:00Z"), None),
        LogEntry(3, "IS MY BIKE COVERED!!", parse_when("2025-04-01T10:00:00Z"), None),
    ]
    r = draw_sample(log, scrub, target=5)
    assert (r.exact_duplicates, r.near_duplicates, len(r.rows)) == (2, 0, 1)
    assert r.rows[0].line == 2  # the earliest timestamp, not the first line
    digest = hashlib.sha1(b"is my bike covered").hexdigest()
    assert r.rows[0].id == question_id("Is my bike covered?") == "s" + digest[:10]
    assert normalise(" What's  the EXCESS? ") == "what s the excess"


def test_since_keeps_entries_at_or_after_the_date():
    log = entries(
        "how much is the excess for storm damage",
        "how much is the excess for flood damage",
        "what does END-HM-14 change",
    )
    log = [
        LogEntry(e.line, e.text, parse_when(ts), None)
        for e, ts in zip(
            log, ["2025-05-31T23:59:59Z", "2025-06-01T00:00:00Z", "2025-07-01"], strict=True
        )
    ]
    r = draw_sample(log, scrub, since="2025-06-01", target=5)
    assert (r.entries_in, r.after_since) == (3, 2)
    assert sorted(row.line for row in r.rows) == [2, 3]
    assert r.shares == {"identifiers": 0.5, "definitions": 0, "procedures": 0, "limits": 0.5,
                        "exclusions": 0}  # fmt: skip
    with pytest.raises(UserError, match="no entry is on or after 2026-01-01"):
        draw_sample(log, scrub, since="2026-01-01")


def test_a_cluster_is_in_the_set_when_any_of_its_texts_is():
    # the kept text (two edits from the labelled one) reaches it only through a later member
    log = entries("hat is classed as a storm", "what is classed as a storm")
    r = draw_sample(log, scrub, existing=["whta is classed as a storm"], target=5)
    assert (r.near_duplicates, r.already_in_set, len(r.rows)) == (1, 1, 0)


def test_questions_already_in_the_set_are_never_drawn():
    existing = ["What is the excess on my travel insurance?"]
    log = entries(
        "what is the excess on my travel insurance",  # exact
        "What is the excess on my travle insurance? cheers",  # near
        "what is the excess on my car insurance",  # a different question
    )
    for seed in range(20):
        r = draw_sample(log, scrub, existing=existing, target=5, seed=seed)
        assert [row.line for row in r.rows] == [3]
        assert (r.near_duplicates, r.already_in_set) == (1, 1)


def test_unknown_bucket_is_counted_never_drawn_nor_in_the_shares():
    log = entries("what does END-HM-14 change", "xyzzy plugh", "lorem ipsum dolor")
    r = draw_sample(log, scrub, target=5)
    assert (r.unknown, r.unknown_available) == (2, 2)
    assert [row.slice for row in r.rows] == ["identifiers"]
    assert UNKNOWN not in r.shares and r.shares["identifiers"] == 1.0
    assert "unknown slice              2 entries" in render_summary(r)


def many_limits(n: int) -> list[str]:
    items = ["bike", "laptop", "ring", "sofa", "camera", "guitar", "watch", "tablet", "kayak",
             "drone", "piano", "painting", "mirror", "carpet", "freezer", "cooker", "boiler",
             "fence", "shed", "greenhouse", "telescope", "violin", "scooter", "pram", "tent",
             "rug", "lamp", "clock", "desk", "bed"]  # fmt: skip
    return [f"how much will you pay for my {item}" for item in items[:n]]


def test_same_seed_same_sample_other_seed_other_sample():
    log = entries(*many_limits(30))
    a = draw_sample(log, scrub, target=5, seed=7)
    b = draw_sample(log, scrub, target=5, seed=7)
    c = draw_sample(log, scrub, target=5, seed=8)
    assert (a.near_duplicates, a.slices["limits"].available) == (0, 30)
    assert a.rows == b.rows and len(a.rows) == 5
    assert [r.line for r in a.rows] != [r.line for r in c.rows]
    assert [r.line for r in a.rows] == sorted(r.line for r in a.rows)  # time order in a slice
    zero = draw_sample(log, scrub, target=5, seed=0)  # seed 0 is a seed, not "no seed"
    assert zero.rows == draw_sample(log, scrub, target=5, seed=0).rows
    assert zero.rows != a.rows


def test_a_short_slice_gives_all_it_has_and_reports_the_shortfall():
    log = entries(*many_limits(3), "what does END-HM-14 change")
    r = draw_sample(log, scrub, target={s: 10 for s in SLICES})
    lim, ids = r.slices["limits"], r.slices["identifiers"]
    assert (lim.available, lim.sampled, lim.shortfall) == (3, 3, 7)
    assert (ids.available, ids.sampled, ids.shortfall) == (1, 1, 9)
    assert r.slices["exclusions"].shortfall == 10
    assert [row.slice for row in r.rows] == ["identifiers", "limits", "limits", "limits"]


def test_scrub_runs_before_anything_sees_the_text():
    seen: list[str] = []

    def recording(text: str) -> str:
        seen.append(text)
        return scrub(text)

    log = entries("how much is the excess, mail me at a@b.co")
    r = draw_sample(log, recording, existing=["what about bob@c.co"], target=5)
    assert seen == ["what about bob@c.co"]  # existing questions are scrubbed too
    assert [row.text for row in r.rows] == ["how much is the excess, mail me at <EMAIL>"]


def test_clusters_list_the_kept_question_and_what_it_absorbed_scrubbed():
    log = entries(
        "Is wear and tear covered?",
        "is wear and tear covered",  # exact
        "is weara nd tear covered, me@x.org",  # near, scrubbed
        "is wear and tear covered",  # exact again
        "is weara nd tear covered, me@x.org",  # the near text again
        "what does END-HM-14 change",  # alone: no cluster
    )
    r = draw_sample(log, scrub, target=5)
    assert (r.exact_duplicates, r.near_duplicates) == (3, 1)
    [c] = r.clusters
    assert (c.text, c.line, c.slice, c.fate, c.size) == (
        "Is wear and tear covered?", 1, "exclusions", "sampled", 5
    )  # fmt: skip
    assert [(a.text, a.how, a.count, a.line) for a in c.absorbed] == [
        ("is wear and tear covered", "exact", 2, 2),
        ("is weara nd tear covered, <EMAIL>", "near", 1, 3),
        ("is weara nd tear covered, <EMAIL>", "exact", 1, 5),  # a repeat of the near text
    ]
    assert (c.exact, c.near) == (3, 1)  # as the sample counts them


def test_write_clusters_writes_one_scrubbed_json_object_per_kept_question(tmp_path):
    log = entries("is my bike covered", "is my bike coverd", "how much is the excess, me@x.org",
                  "how much is teh excess, me@x.org")  # fmt: skip
    r = draw_sample(log, scrub, target=5)
    path = write_clusters(r, clusters_path(tmp_path / "sampled_questions.jsonl"))
    assert path == tmp_path / "sampled_questions.clusters.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert rows == [
        {"kept": "is my bike covered", "line": 1, "slice": "exclusions", "fate": "sampled",
         "exact": 0, "near": 1,
         "absorbed": [{"text": "is my bike coverd", "how": "near", "count": 1, "line": 2}]},
        {"kept": "how much is the excess, <EMAIL>", "line": 3, "slice": "limits",
         "fate": "sampled", "exact": 0, "near": 1,
         "absorbed": [{"text": "how much is teh excess, <EMAIL>", "how": "near", "count": 1,
                       "line": 4}]},
    ]  # fmt: skip
    assert "@" not in path.read_text()


def test_the_summary_counts_entries_exact_and_near_duplicates():
    log = entries("is my bike covered", "is my bike covered", "is my bike coverd")
    text = render_summary(draw_sample(log, scrub, target=5))
    assert "log: 3 entries in, 3 kept" in text
    assert "exact duplicates removed   1" in text
    assert "near-duplicates removed    1 (" in text


def test_a_slice_that_no_entry_matched_names_the_rules_file_and_how_to_extend_it(tmp_path):
    rules = tmp_path / "acme.yaml"
    rules.write_text(
        "slices:\n"
        "  - name: identifiers\n    patterns: ['\\bEND-[A-Z]{2}-\\d+\\b']\n"
        "  - name: limits\n    keywords: [how much]\n"
    )
    c = load_classifier(rules)
    log = entries("what does ACME-7731 change", "how much is the excess")  # another insurer's id
    r = draw_sample(log, scrub, target=5, classifier=c)
    assert (r.slices["identifiers"].matched, r.slices["identifiers"].sampled) == (0, 0)
    why = zero_reasons(r)
    assert list(why) == ["identifiers"]
    assert why["identifiers"].startswith(f"no entry matched its rules in {rules}; ")
    assert "--write-rules slices.yaml" in why["identifiers"]
    assert "your insurer's code pattern" in why["identifiers"]
    assert f"  identifiers: 0 questions: no entry matched its rules in {rules}" in render_summary(r)
    assert f"slices by the rules in {rules}" in render_summary(r)


def test_a_slice_whose_entries_were_all_duplicates_or_in_the_set_says_so():
    log = entries("what does END-HM-14 change", "what does END-HM-14 chnage", "how much is it")
    r = draw_sample(log, scrub, target=5, existing=["What does END-HM-14 change?"])
    assert (r.slices["identifiers"].matched, r.slices["identifiers"].available) == (2, 0)
    assert zero_reasons(r)["identifiers"].startswith(
        "all 2 entries the rules put in it were duplicates (of each other or of another slice's "
        "entries) or already in the labelled set"
    )


def test_a_slice_the_log_column_never_names_says_so():
    log = [LogEntry(1, "what does END-HM-14 change", None, "identifiers")]
    r = draw_sample(log, scrub, target=5)
    assert r.rules is None
    assert zero_reasons(r)["limits"] == "no entry of the log's slice column names it"
    assert "slices by the log's slice column" in render_summary(r)
