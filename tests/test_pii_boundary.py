"""The raw log never leaves its file (issue 27): the whole labelling loop a user runs
(docs/labelling.md: sample -> pool -> prelabel -> import -> sweep -> confirm -> report) on a copy
of the sample whose query log carries planted personal items, then every file written anywhere
in the test's folders (the dataset, the sheets, the caches, the sweep folders and pickles, the
MLflow store with its sqlite database and artifacts, an .xlsx sheet unzipped), everything
printed, and every prompt the (fake) chat model received, grepped for every planted item.

A failure names the file and the kind, never the value. Extend `PLANTED` to test a new kind."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from conftest import cli_in
from labelling.chat_server import ChatServer
from ragsweep.data.load import sample_path

#: (kind, value): each goes into the log below, where a user would type it
PLANTED: list[tuple[str, str]] = [
    ("EMAIL", "harriet.okafor@example.org"),
    ("PHONE", "07700 900461"),
    ("NAME", "Harriet Okafor"),
    ("POSTCODE", "LS6 2QD"),
    ("POLICY_REF", "POL-00739152"),
    ("CLAIM_REF", "CLM-2025-004417"),
    ("CARD", "4539 1488 0343 6467"),  # passes the Luhn check
    ("NI_NUMBER", "JG 10 37 29 A"),
    ("DOB", "14/03/1987"),
    ("IBAN", "GB82 WEST 1234 5698 7654 32"),
    ("ADDRESS", "14 Larkspur Close"),
    ("NHS_NUMBER", "943 476 5919"),
    ("URL", "https://example.com/u/harriet-okafor/photos"),
    ("BANK_ACCOUNT", "31926819"),
    ("DRIVING_LICENCE", "OKAFO751234HA9XY"),
    ("PASSPORT", "541379826"),
    ("VEHICLE_REG", "KX19 WPD"),
    ("VIN", "1HGCM82633A004352"),
    ("SOCIAL_HANDLE", "@harriet_ok87"),
    ("IP_ADDRESS", "203.0.113.77"),
]
V = dict(PLANTED)

#: the query log: a question of each slice, carrying the planted items as a user would
LOG_TEXTS = [
    f"how much is the excess on my home policy {V['POLICY_REF']}, my name is {V['NAME']}, iban "
    f"{V['IBAN']}",
    f"am I covered if my bicycle is stolen from the garden shed at {V['ADDRESS']}, {V['POSTCODE']}",
    f"how do I report a burst pipe for claim {V['CLAIM_REF']}? ring me on {V['PHONE']}, nhs "
    f"number {V['NHS_NUMBER']}",
    f"what does accidental damage mean exactly, email me at {V['EMAIL']}, photos at {V['URL']}",
    f"what is the maximum you pay for jewellery, my card {V['CARD']} was charged twice, account "
    f"{V['BANK_ACCOUNT']}",
    f"how do I cancel my motor policy, my national insurance number is {V['NI_NUMBER']}, licence "
    f"{V['DRIVING_LICENCE']}, passport {V['PASSPORT']}",
    f"will you pay for subsidence to the garage walls, dob {V['DOB']}, reg {V['VEHICLE_REG']}, "
    f"vin {V['VIN']}",
    f"does endorsement END-HM-14 apply to policy {V['POLICY_REF']}, my name is {V['NAME']}, "
    f"{V['SOCIAL_HANDLE']} on twitter, ip {V['IP_ADDRESS']}",
]


def forms(kind: str, value: str) -> list[re.Pattern[bytes]]:
    """The ways a value, or a part of it a scrubber left behind, may appear in a file (case
    ignored): as typed; without its spaces and dashes; its digits alone (8 or more); each run of
    6 or more letters and digits holding a digit (`004417` of a claim reference scrubbed only
    in part); an e-mail's local part; a name's words. A run of digits only must stand alone (not
    inside a longer number or after a decimal point: timestamps and scores are full of digits)."""
    out = {value, re.sub(r"[\s-]", "", value)}
    digits = re.sub(r"\D", "", value)
    if len(digits) >= 8:
        out.add(digits)
    out.update(r for r in re.findall(r"[A-Za-z0-9]+", value) if len(r) >= 6 and re.search(r"\d", r))
    if kind == "EMAIL":
        out.add(value.split("@")[0])
    if kind == "NAME":
        out.update(w for w in value.split() if len(w) >= 4)
    return [
        re.compile(
            (rb"(?<![\d.])" + re.escape(f.encode()) + rb"(?!\d)")
            if f.isdigit()
            else re.escape(f.encode()),
            re.I,
        )
        for f in sorted(out)
    ]


def readable(path: Path) -> list[tuple[str, bytes]]:
    """(where, bytes) of a file, and of every member of it when it is a zip (an .xlsx)."""
    data = path.read_bytes()
    parts = [(str(path), data)]
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            parts += [(f"{path}!{name}", z.read(name)) for name in z.namelist()]
    return parts


def leaks(texts: list[tuple[str, bytes]]) -> list[str]:
    """`where: KIND (form n)` for every planted item found; never the value itself."""
    found = []
    for where, data in texts:
        for kind, value in PLANTED:
            for n, form in enumerate(forms(kind, value)):
                if form.search(data):
                    found.append(f"{where}: {kind} (form {n})")
    return found


@pytest.mark.slow
def test_no_planted_item_reaches_any_file_print_or_prompt_of_the_whole_loop(tmp_path, monkeypatch):
    home = tmp_path / "home"  # anything written under ~ lands here, and is grepped too
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    work = tmp_path / "work"
    work.mkdir()
    data = tmp_path / "mydata"
    shutil.copytree(sample_path(), data, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    (data / "query_log.jsonl").write_text(
        "".join(
            json.dumps({"ts": f"2025-06-01T09:{i:02d}:00Z", "session": f"s{i}", "text": t}) + "\n"
            for i, t in enumerate(LOG_TEXTS)
        ),
        encoding="utf-8",
    )
    ran = [cli_in(work, "data", "manifest", str(data)).ok()]
    assert leaks([("the log", (data / "query_log.jsonl").read_bytes())]), "nothing planted"
    d = ("--data", str(data))

    ran.append(cli_in(work, "labels", "sample", *d, "--target", "5").ok())
    sampled = [json.loads(line) for line in (work / "sampled_questions.jsonl").open()]
    assert len(sampled) == len(LOG_TEXTS), "every planted entry is drawn, so the test can fail"
    ran.append(
        cli_in(
            work, "labels", "pool", *d, "--candidates", "sampled_questions.jsonl",
            "--depth", "3", "--out", "judging_sheet.xlsx",
        ).ok()
    )  # fmt: skip
    with ChatServer() as server:
        chat = ["--chat-url", server.url, "--chat-model", "judge-1", "--api-key-env", "NO_KEY"]
        monkeypatch.setenv("NO_KEY", "sk-test")
        ran.append(cli_in(work, "labels", "prelabel", "judging_sheet.xlsx", *d, *chat).ok())
    assert len(server.requests) > 0
    prompts = [
        (
            "the prompts the chat model received",
            "\n".join(r.prompt for r in server.requests).encode(),
        )
    ]
    sheet = pd.read_excel(work / "judging_sheet.xlsx", dtype=str, keep_default_na=False)
    sheet["grade"], sheet["judge"] = "0", "ann"  # the judge: each question's first clause answers
    sheet.loc[sheet.groupby("qid").head(1).index, "grade"] = "2"
    sheet.to_csv(work / "judged.csv", index=False, encoding="utf-8-sig")
    done = cli_in(
        work, "labels", "import", "judged.csv", *d, "--candidates", "sampled_questions.jsonl"
    )
    ran.append(done.ok())
    assert f"{len(LOG_TEXTS)} sampled question(s) joined the set" in done.out

    sweep = ["data=folder", f"data.path={data}", "retriever=bm25", "chunker.size=128,256"]
    ran.append(cli_in(work, "-m", *sweep).ok())
    ran.append(cli_in(work, "confirm", "chunker.size"))
    assert ran[-1].code in (0, 1), ran[-1].err
    ran.append(cli_in(work, "report", "chunker.size", "--out", str(work / "report")).ok())

    files = [p for p in sorted(tmp_path.rglob("*")) if p.is_file()]
    assert any(p.name == "dataset.pkl" for p in files), "no sweep folder was grepped"
    assert any(p.suffix == ".db" for p in files), "no MLflow database was grepped"
    everything = [
        (where.replace(str(tmp_path), "tmp"), content)
        for p in files
        if p != data / "query_log.jsonl"
        for where, content in readable(p)
    ]
    printed = [(f"output of step {i}", (r.out + r.err).encode()) for i, r in enumerate(ran)]
    found = leaks(everything + printed + prompts)
    assert not found, "personal data got through:\n" + "\n".join(found)
