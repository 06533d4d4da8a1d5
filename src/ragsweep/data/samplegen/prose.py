"""Sentence machinery for the sample: alternations, and the generic filler sentences of
`filler.yaml`.

Templates use two notations:

- `<a|b|c>` picks one alternative (uniformly, with the caller's `random.Random`). An alternative
  written `=x` is *formal* wording (as printed in the policy); the others are *lay* wording (as a
  policyholder says it). When a group has both, the formal one is taken with probability
  `p_formal`, which is how question paraphrase strength is tuned.
- `{name}` / `{v[name]}` / `{ref[key]}` placeholders are filled later with `str.format_map`.

Alternations are resolved before placeholders, so one resolved template can be formatted for both
wording versions and the two versions differ only where their values differ.
"""

from __future__ import annotations

import random
import re

from ragsweep.data.samplegen import texts

_GROUP = re.compile(r"<([^<>]*)>")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([?,.!;:])")


def expand(template: str, rng: random.Random, p_formal: float = 0.5) -> str:
    """Resolve every `<a|b|=c>` group of `template` (left to right, one draw per group)."""

    def pick(match: re.Match[str]) -> str:
        alts = match.group(1).split("|")
        formal = [a[1:] for a in alts if a.startswith("=")]
        lay = [a for a in alts if not a.startswith("=")]
        if formal and lay:
            pool = formal if rng.random() < p_formal else lay
        else:
            pool = formal or lay
        return pool[rng.randrange(len(pool))]

    text = " ".join(_GROUP.sub(pick, template).split())
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text)  # an empty alternative before "?" or ","


def sentence_case(text: str) -> str:
    """Upper-case the first character only (keeps codes and proper nouns as they are)."""
    return text[:1].upper() + text[1:]


#: generic filler sentences by part kind (filler.yaml says what they may and may not say)
FILLER: dict[str, tuple[str, ...]] = texts.load("filler.yaml", "filler", dict[str, tuple[str, ...]])
#: sentences only one product's wordings would print (tone, not terms); a non-shared clause gets
#: one with probability `wordings.P_FLAVOUR`
PRODUCT_FILLER: dict[str, tuple[str, ...]] = texts.load(
    "filler.yaml", "product_filler", dict[str, tuple[str, ...]]
)
