"""A section of a sample document and the wording facts it states: the source of the sample's
labels (`answers`, `mentions`, `points` follow from `states`), and `check_passages`, which
verifies them against what each section prints. See docs/sample.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: a printed amount (pounds) or time limit: what `check_passages` traces back to a listed clause
FACT_TOKEN = re.compile(
    r"£\d{1,3}(?:,\d{3})*(?:\.\d\d)?|\b\d+ (?:days?|hours?|weeks?|months?|years?|miles?|metres?)\b"
)


#: a fact: (wording clause key, 0-based index into that clause's `core` tuple as written)
Fact = tuple[str, int]


@dataclass(frozen=True)
class Passage:
    """One section of one document version, and the wording clauses whose facts it states.

    `answers` and `mentions` are derived from `states` (see `make_passage`): a clause is answered
    when every core sentence it has in that version is stated, mentioned when some are.
    """

    product: str  # "home"
    document: str  # "home", "home-faq", ...
    kind: str  # part kind
    states: frozenset[Fact]  # the (clause key, core index) facts this passage restates
    answers: frozenset[str]  # clause keys all of whose present facts it states
    mentions: frozenset[str]  # clause keys some (not all) of whose present facts it states
    #: clause keys it names without stating any of their facts (summary glosses, code lists)
    points: frozenset[str] = frozenset()


def make_passage(
    product: str,
    document: str,
    kind: str,
    states: frozenset[Fact],
    present: dict[str, frozenset[int]],
    points: frozenset[str] = frozenset(),
) -> Passage:
    """A `Passage` whose `answers`/`mentions` follow from `states`; `present` maps each clause
    key to its core indices in this version. Stating an absent fact is an error."""
    by_key: dict[str, set[int]] = {}
    for key, index in states:
        if index not in present.get(key, frozenset()):
            raise ValueError(f"{document}: states {key}[{index}], not in this version")
        by_key.setdefault(key, set()).add(index)
    answers = frozenset(k for k, got in by_key.items() if got >= present[k])
    return Passage(
        product,
        document,
        kind,
        frozenset(states),
        answers,
        frozenset(by_key) - answers,
        frozenset(points) - frozenset(by_key),
    )


@dataclass(frozen=True)
class ClauseText:
    """One wording clause as printed in one version, split into what derived documents reuse."""

    key: str
    section: str
    heading: str
    kind: str
    facts: tuple[str, ...]  # the rendered `core` sentences present in this version, in order
    indices: tuple[int, ...]  # each fact's index in the clause's `core` tuple
    code_sentence: str | None  # the sentence printing the exclusion code, if any
    #: (core index, value name, printed amount) of the `{v[name]}` values its facts print
    amounts: tuple[tuple[int, str, str], ...]
    gloss: str | None  # the plain-English one-line gloss (None: the clause has none)
    text: str  # the full clause text (facts and filler)

    def all_facts(self) -> frozenset[Fact]:
        return frozenset((self.key, i) for i in self.indices)

    def facts_where(self, keep) -> frozenset[Fact]:
        """The facts whose sentence satisfies `keep(sentence)`."""
        return frozenset(
            (self.key, i) for i, f in zip(self.indices, self.facts, strict=True) if keep(f)
        )


def check_passages(
    documents: dict[tuple[str, str], dict],
    passages: dict[tuple[str, str, str], Passage],
    facts: dict[tuple[str, str, str], dict[int, str]],
) -> list[str]:
    """Problems with the labels' source: a stated fact that is not in that product version,
    `answers`/`mentions` that do not follow from `states`, and amounts or time limits a passage
    prints that none of the facts it states prints.

    `facts` maps (product, clause key, version) to the clause's core sentences by core index.
    """
    problems = []
    for (document, version), doc in sorted(documents.items()):
        for part in doc["parts"]:
            for clause in part["clauses"]:
                where = f"{document}/{clause['section']}@{version}"
                p = passages[(document, clause["section"], version)]
                stated, got = [], {}
                for key, index in sorted(p.states):
                    sentence = facts.get((p.product, key, version), {}).get(index)
                    if sentence is None:
                        problems.append(f"{where}: states {key}[{index}], not in that version")
                    else:
                        stated.append(sentence)
                        got.setdefault(key, set()).add(index)
                full = {k for k, g in got.items() if g >= set(facts[(p.product, k, version)])}
                if p.answers != full or p.mentions != set(got) - full:
                    problems.append(f"{where}: answers/mentions do not follow from states")
                joined = " ".join(stated)
                for token in FACT_TOKEN.findall(clause["heading"] + "\n" + clause["text"]):
                    if token not in joined:
                        problems.append(
                            f"{where}: prints {token!r}, which none of the facts it states"
                            f" ({sorted(p.states)}) prints"
                        )
    return problems
