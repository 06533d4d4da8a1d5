"""The FAQ (`<p>-faq`): formal questions, each answered from the facts of one wording clause in
an FAQ's looser register, citing its section. See docs/sample.md.
"""

from __future__ import annotations

import random
import re

from ragsweep.data.samplegen.derived_doc import DerivedDoc, cite, plain, product_name
from ragsweep.data.samplegen.passages import ClauseText

#: FAQ: share of a part kind's clauses that get questions, and chance of a question per fact
P_FAQ: dict[str, float] = {
    "cover": 0.6,
    "limits": 0.6,
    "claims": 0.6,
    "conditions": 0.6,
    "exclusions": 0.5,
    "other": 0.5,
    "definitions": 0.4,
}
P_FAQ_FACT = 0.95


def _faq_topic_question(clause: ClauseText) -> str:
    h = clause.heading
    if clause.kind == "definitions":
        return f"What does '{h}' mean in my policy?"
    if clause.kind == "limits":
        tail = "how much is it?" if "excess" in h.lower() else "what are the limits?"
    else:
        tail = {
            "cover": "what does the cover include?",
            "exclusions": "what is not covered?",
            "claims": "what do I need to do?",
            "conditions": "what does the condition require?",
        }.get(clause.kind, "what do I need to know?")
    return f"{h}: {tail}"


_FACT_TYPES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (
        re.compile(r"\bexcess\b.*£|£.*\bexcess\b", re.I),
        ("how much do I pay myself?", "is there another excess?", "when does the excess apply?"),
    ),
    (
        re.compile(r"£"),
        ("is there a limit?", "is there a separate limit?", "what other amounts apply?"),
    ),
    (
        re.compile(r"\bwithin \d+ (?:days?|hours?|weeks?|months?)\b|\bas soon as\b"),
        (
            "is there a time limit?",
            "how quickly do I need to act?",
            "what other time limits apply?",
        ),
    ),
    (
        re.compile(r"\b(?:must|need to|have to)\b"),
        ("what do I have to do?", "what else do I have to do?", "what are my other obligations?"),
    ),
    (
        re.compile(r"\b(?:not|no|never|except|unless)\b", re.I),
        ("are there any exceptions?", "what is not included?", "are there any other exceptions?"),
    ),
    (
        re.compile(r".*"),
        (
            "what else should I know?",
            "is there anything else I should know?",
            "what other details apply?",
        ),
    ),
)


def _fact_question(clause: ClauseText, fact: str, used: set[str]) -> str | None:
    """A topic-prefixed question whose answer is `fact`, unique in the FAQ (None: none left)."""
    for pattern, tails in _FACT_TYPES:
        if pattern.search(fact):
            for tail in tails + _FACT_TYPES[-1][1]:
                heading = f"{clause.heading}: {tail}"
                if heading not in used:
                    return heading
            return None
    return None


def build_faq(doc: DerivedDoc, clauses: list[ClauseText], seed: int) -> None:
    """The FAQ: a topic question per chosen clause, and one per kept fact of a longer clause."""
    p = doc.product
    titles = {
        "other": "About your policy",
        "definitions": "Words we use",
        "cover": "Your cover",
        "limits": "Limits and excesses",
        "exclusions": "What is not covered",
        "claims": "Making a claim",
        "conditions": "Your policy conditions",
    }
    used: set[str] = set()
    doc.part("About these questions", "other")
    doc.add(
        "How do these answers relate to my policy?",
        f"These answers explain the {product_name(p)} ({doc.version} edition) in everyday words."
        " Each one names the section of the policy wording it comes from; where an answer and the"
        " wording differ, the wording applies.",
    )
    kinds = list(dict.fromkeys(c.kind for c in clauses))
    for kind in kinds:
        # a fixed share of each kind, ranked by a per-clause draw (the same in every version)
        of_kind = [c for c in clauses if c.kind == kind]
        draws = {}
        for c in of_kind:
            rng = random.Random(f"ragsweep-sample:{seed}:faq:{p.document}:{c.key}")
            draws[c.key] = (rng.random(), [rng.random() < P_FAQ_FACT for _ in range(32)])
        n = round(P_FAQ.get(kind, 0.4) * len(of_kind))
        picked = set(sorted(draws, key=lambda k: (draws[k][0], k))[:n])
        chosen = [(c, draws[c.key][1]) for c in of_kind if c.key in picked]
        if not chosen:
            continue
        doc.part(titles.get(kind, "Other questions"), kind)
        for c, take in chosen:
            heading = _faq_topic_question(c)
            if heading in used:
                heading = f"{heading[:-1]} (section {c.section})?"
            used.add(heading)
            body = [plain(f) for f in c.facts]
            if c.code_sentence:
                body.append(c.code_sentence)
            doc.add(heading, " ".join([*body, cite(c.section)]), states=c.all_facts())
            if len(c.facts) < 2:
                continue
            for index, fact, keep in zip(c.indices, c.facts, take, strict=False):
                if not keep:
                    continue
                q = _fact_question(c, fact, used)
                if q is None:
                    continue
                used.add(q)
                doc.add(q, f"{plain(fact)} {cite(c.section)}", states={(c.key, index)})
