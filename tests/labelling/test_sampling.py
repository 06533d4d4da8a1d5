"""Sampling questions from a raw log: reading, scrubbing first, dedupe, since, exclusion of the
labelled set, unknown bucket, stratified draw, traffic shares, one-line errors."""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sys
from pathlib import Path

import pytest
import yaml
from omegaconf import OmegaConf
from rapidfuzz import fuzz

from ragsweep.errors import UserError
from ragsweep.labelling.sampling import (
    NEAR_THRESHOLD,
    UNKNOWN,
    LogEntry,
    classifier_accuracy,
    clusters_path,
    draw_sample,
    load_classifier,
    near_duplicates,
    near_key,
    normalise,
    parse_when,
    question_id,
    read_log,
    render_summary,
    same_question,
    sample_log,
    traffic_shares,
    write_clusters,
    write_rules,
    write_weights,
    zero_reasons,
)
from ragsweep.scoring.weights import slice_weights

QUESTIONS = Path(__file__).parents[2] / "src/ragsweep/data/sample/questions.jsonl"
SLICES = ("identifiers", "definitions", "procedures", "limits", "exclusions")


def scrub(text: str) -> str:
    """Stand-in scrubber: e-mail addresses and long digit runs."""
    return re.sub(r"\d{6,}", "<PHONE>", re.sub(r"\S+@\S+", "<EMAIL>", text))


def entries(*texts: str, month: int = 1) -> list[LogEntry]:
    """One entry a text, a minute apart, in the given order."""
    return [
        LogEntry(i + 1, scrub(t), parse_when(f"2025-{month:02d}-01T09:{i:02d}:00Z"), None)
        for i, t in enumerate(texts)
    ]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- near-duplicates

#: the key `same_question` and `near_duplicates` compare
key = functools.partial(near_key, mark=True)


def test_typos_and_reordered_words_are_near_duplicates_and_the_earliest_stays():
    keys = [
        key("How much is the excess for storm damage?"),
        key("how mcuh is the excess for strom damage"),  # two typos
        key("The excess for storm damage: how much is it?"),  # an extra word: another
        key("hi there, how much is the excess for storm damage? thx"),  # filler only
        key("how much is the excess for storm damage, call me on <PHONE>"),
    ]
    assert near_duplicates(keys) == [None, 0, None, 0, 0]
    reordered = [key("is my bike covered abroad"), key("abroad, is my bike covered")]
    assert near_duplicates(reordered) == [None, 0]


def test_questions_sharing_a_template_are_kept_apart():
    storm = "how much is the excess for storm damage"
    flood = "how much is the excess for flood damage"
    assert near_duplicates([key(storm), key(flood)]) == [None, None]
    # a long question passes the score cutoff; the word check still keeps them apart
    long_storm = "on my home policy how much is the excess for storm damage to the garden fence"
    long_flood = long_storm.replace("storm", "flood")
    assert fuzz.token_sort_ratio(long_storm, long_flood) >= NEAR_THRESHOLD
    assert not same_question(key(long_storm), key(long_flood))
    # ids and years differ by a digit: never a typo
    assert not same_question(
        key("What does exclusion EXC-TR-12 say?"),
        key("What does exclusion EXC-TR-14 say?"),
    )
    assert not same_question(key("bought in 2024"), key("bought in 2025"))
    # a question inside a longer one is a different question
    assert not same_question(key("is my bike covered"), key("is my bike covered abroad"))


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


# ----------------------------------------------------------------------------- since, set


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


# ----------------------------------------------------------------------------- slices


def test_unknown_bucket_is_counted_never_drawn_nor_in_the_shares():
    log = entries("what does END-HM-14 change", "xyzzy plugh", "lorem ipsum dolor")
    r = draw_sample(log, scrub, target=5)
    assert (r.unknown, r.unknown_available) == (2, 2)
    assert [row.slice for row in r.rows] == ["identifiers"]
    assert UNKNOWN not in r.shares and r.shares["identifiers"] == 1.0
    assert "unknown slice              2 entries" in render_summary(r)


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


# ----------------------------------------------------------------------------- the draw


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


def test_traffic_shares_count_volume_before_dedupe_and_sum_to_one(tmp_path):
    log = entries(
        "how much is the excess", "how much is the excess", "how much is the excess",
        "what does END-HM-14 change", "xyzzy",
    )  # fmt: skip
    r = draw_sample(log, scrub, target=5)
    assert r.exact_duplicates == 2
    assert r.shares["limits"] == 3 / 4 and r.shares["identifiers"] == 1 / 4
    assert sum(r.shares.values()) == 1.0
    thirds = traffic_shares(["limits", "exclusions", "procedures", UNKNOWN], SLICES)
    out = tmp_path / "weights.yaml"
    written = write_weights(out, thirds, comment="from query_log.jsonl\nunknown: 1 entry")
    loaded = yaml.safe_load(out.read_text())
    assert loaded == written
    assert written["limits"] + written["exclusions"] + written["procedures"] == 1.0
    assert sorted(written.values()) == [0, 0, 0.3333, 0.3333, 0.3334]
    assert out.read_text().startswith("# from query_log.jsonl\n# unknown: 1 entry\n")
    cfg = OmegaConf.create({"eval": {"traffic_weights": loaded}})
    assert slice_weights(cfg, ["limits", "exclusions", "procedures"], SLICES) == pytest.approx(
        {"limits": 1 / 3, "exclusions": 1 / 3, "procedures": 1 / 3}, abs=1e-3
    )


# ----------------------------------------------------------------------------- reading


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


def test_scrub_runs_before_anything_sees_the_text():
    seen: list[str] = []

    def recording(text: str) -> str:
        seen.append(text)
        return scrub(text)

    log = entries("how much is the excess, mail me at a@b.co")
    r = draw_sample(log, recording, existing=["what about bob@c.co"], target=5)
    assert seen == ["what about bob@c.co"]  # existing questions are scrubbed too
    assert [row.text for row in r.rows] == ["how much is the excess, mail me at <EMAIL>"]


# ----------------------------------------------------------------------------- issue 27: dedupe

# the forms an unseen log showed: a placeholder and the words that introduce it go
LEAD_INS = [
    "dob <DOB> is storm damage covered",
    "DOB: <DOB>, is storm damage covered",
    "D.O.B. <DOB>. Is storm damage covered?",
    "is storm damage covered, reg <VEHICLE_REG>",
    "pol no <POLICY_REF> - is storm damage covered",
    "policy number: <POLICY_REF>. is storm damage covered",
    "is storm damage covered signed <NAME>",
    "is storm damage covered. Kind regards Mr <NAME>",
    "my nhs number is <NHS_NUMBER>, is storm damage covered",
    "acc <BANK_ACCOUNT> is storm damage covered",
    "is storm damage covered my email is <EMAIL>",
    "is storm damage covered call me on <PHONE>",
    "<NAME> here - is storm damage covered",
    "Hi, I'm <NAME>. is storm damage covered",
    "is storm damage covered - car is <VEHICLE_REG>",
    "is storm damage covered I live in <POSTCODE> tel <PHONE> thank you!",
    "my name's <NAME>, is storm damage covered",
    "is storm damage covered (<CLAIM_REF>)",
]


@pytest.mark.parametrize("text", LEAD_INS)
def test_placeholders_go_with_the_words_that_introduce_them(text):
    assert near_key(text) == "is storm damage covered"


def test_a_noun_the_question_is_about_stays_before_a_placeholder():
    assert near_key("is my car <VEHICLE_REG> covered abroad") == "is my car covered abroad"
    assert near_key("does my policy <POLICY_REF> cover storms") == "does my policy cover storms"
    assert near_key("<NAME>") == "name"  # never empty: the step that would empty it is skipped


def test_the_marked_key_shows_placeholders_and_what_may_be_contact_wording():
    assert (
        key("my tiktok is <URL> is storm damage covered")
        == "~my ~tiktok ~is § ~is storm damage covered"
    )
    # a contact segment, a lead-in cut off by its full stop, and the question's own words
    assert key("is scuba - mob <PHONE> - diving covered. D.O.B. <DOB>") == (
        "is scuba ~mob § diving covered ~d ~o ~b §"
    )
    assert key("is my car <VEHICLE_REG> covered") == "~is ~my ~car § covered"  # one segment
    assert near_key("is my car <VEHICLE_REG> covered") == "is my car covered"


def test_clusters_join_through_a_third_text_in_any_order():
    texts = [
        "hat is classed as a storm",
        "whta is classed as a storm",
        "what is classed as a storm",
    ]
    assert not same_question(key(texts[0]), key(texts[1]))  # two edits apart
    for order in ([0, 1, 2], [2, 1, 0], [1, 0, 2]):
        assert near_duplicates([key(texts[i]) for i in order]) == [None, 0, 0]


# the hand-written hard pairs benchmarks/dedup.py measures (benchmarks/ is a folder of scripts)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from dedup import HARD_PAIRS  # noqa: E402


@pytest.mark.parametrize(("a", "b", "same"), HARD_PAIRS)
def test_merged_split_and_short_word_typos_are_one_question_and_subjects_stay_apart(a, b, same):
    assert same_question(key(a), key(b)) is same
    assert near_duplicates([key(a), key(b)]) == [None, 0 if same else None]


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


def test_write_rules_copies_the_built_in_rules_and_never_overwrites(tmp_path):
    out = write_rules(tmp_path / "rules" / "slices.yaml")
    assert (
        out.read_text()
        == (Path(__file__).parents[2] / "src/ragsweep/labelling/slices.yaml").read_text()
    )
    assert load_classifier(out).slices == SLICES
    with pytest.raises(UserError, match=r"slices.yaml: already exists; give another file name"):
        write_rules(out)
