"""Which near-duplicate keys (`dedup_key.near_key`) ask one question: candidates proposed by
rapidfuzz's `token_sort_ratio`, decided word by word (`same_question`: typos, articles, merged or
split words, contact wording), joined into clusters (`near_duplicates`) or matched against the
labelled set (`matches_any`). docs/labelling.md, "Duplicates"; measured by benchmarks/dedup.py.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA, Levenshtein

from ragsweep.labelling.dedup_key import (
    CONTACT_VOCABULARY,
    FREE,
    MARK,
    SHORT_WORD,
    TEXT_SPEAK,
    TYPO_EDITS_PER_LETTER,
    is_typo,
)

#: near-duplicate candidates: rapidfuzz scorer (by name) and its cutoff, 0-100. The ratio
#: ignores word order; `token_set_ratio` and `WRatio` were rejected: they score a question 100
#: against any longer question containing it ("is my bike covered" vs "is my bike covered
#: abroad"). No threshold alone separates a typo from another question on the same template
#: ("... storm damage" vs "... flood damage" scores 84.6): the score only proposes, and
#: `same_question` decides.
NEAR_METHOD = "token_sort_ratio"
NEAR_THRESHOLD = 65

#: words a near-duplicate may add or drop
IGNORED_WORDS = frozenset({"a", "an", "the"})

#: when contact wording is all that two questions do not share, they share at least this
#: many words
MIN_SHARED = 3


@dataclass(frozen=True, slots=True)
class _Word:
    typed: str
    said: str  # text-speak read as the word it stands for
    free: bool  # contact wording (`FREE`)


@functools.lru_cache(maxsize=1 << 16)
def _words(key: str) -> tuple[_Word, ...]:
    out = []
    for w in key.split():
        if w != MARK:
            typed = w.removeprefix(FREE)
            out.append(_Word(typed, TEXT_SPEAK.get(typed, typed), w.startswith(FREE)))
    return tuple(out)


@functools.lru_cache(maxsize=1 << 16)
def _said(key: str) -> frozenset[str]:
    return frozenset(w.said for w in _words(key))


def _split(joined: str, vocabulary: frozenset[str]) -> tuple[str, str] | None:
    """`joined` cut into two words of `vocabulary`, the cut with the longer shorter part first;
    None when there is none or it holds a digit."""
    if not joined.isalpha():
        return None
    cuts = [
        k for k in range(1, len(joined)) if joined[:k] in vocabulary and joined[k:] in vocabulary
    ]
    if not cuts:
        return None
    k = max(cuts, key=lambda k: (min(k, len(joined) - k), -k))
    return joined[:k], joined[k:]


def _resegmented(words: Sequence[_Word], vocabulary: frozenset[str]) -> list[_Word]:
    """`words` with merged and split words cut and joined the way `vocabulary` (the other
    text's words) has them: a word it lacks, alone or joined with the next, that is one of its
    words or two of them ("myhome", "weara nd", "payf or", "changeo n")."""
    out: list[_Word] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w.said in vocabulary or not w.typed.isalpha():
            out.append(w)
            i += 1
            continue
        nxt = words[i + 1] if i + 1 < len(words) else None
        for joined, used, free in (
            *(((w.typed + nxt.typed, 2, w.free and nxt.free),) if nxt else ()),
            (w.typed, 1, w.free),
        ):
            parts = (joined,) if joined in vocabulary else _split(joined, vocabulary)
            if parts and (used == 2 or len(parts) == 2):
                out.extend(_Word(p, p, free) for p in parts)
                i += used
                break
        else:
            out.append(w)
            i += 1
    return out


def _unshared(words: Sequence[_Word], other: Sequence[_Word]) -> list[_Word]:
    """`words` not in `other` (as multisets of what they say), in their order; contact wording
    is left over before the rest."""
    left = Counter(w.said for w in other)
    out = set()
    for i in sorted(range(len(words)), key=lambda i: words[i].free):
        if left[words[i].said]:
            left[words[i].said] -= 1
        else:
            out.add(i)
    return [words[i] for i in sorted(out)]


def _unpaired(only_a: Sequence[_Word], only_b: Sequence[_Word]) -> tuple[list[_Word], list[_Word]]:
    """The words of each side left after pairing them up as typos (greedily: the question's
    words before contact wording, in sorted order, each with its most similar partner)."""
    rest = sorted(only_b, key=lambda w: (w.free, w.said))
    left_a = []
    for word in sorted(only_a, key=lambda w: (w.free, w.said)):
        best = max(rest, key=lambda o: OSA.normalized_similarity(word.said, o.said), default=None)
        if best is not None and is_typo(word.said, best.said):
            rest.remove(best)
        else:
            left_a.append(word)
    return left_a, rest


def same_question(key_a: str, key_b: str) -> bool:
    """Whether two marked `near_key`s differ only by word order, typos, articles, words merged
    or split, and contact wording one has and the other lacks. Merged and split words are first
    cut the way the other text has them (`_resegmented`); the words left after removing the
    common ones (as multisets) pair up one to one as typos (`_unpaired`), and what stays
    unpaired may be articles (`IGNORED_WORDS`) and contact wording (`FREE`), the latter only
    when the two share `MIN_SHARED` words; else the two, joined without spaces, differ only by
    scattered typos (`_same_letters`, contact wording one lacks left out)."""
    a, b = _words(key_a), _words(key_b)
    a, b = _resegmented(a, _said(key_b)), _resegmented(b, _said(key_a))
    only_a, only_b = _unshared(a, b), _unshared(b, a)
    left_a, left_b = _unpaired(only_a, only_b)
    # contact wording one side lacks goes; nouns beside a placeholder ("my claim <CLAIM_REF>")
    # only when the other side drops none of its own ("my policy <POLICY_REF>" is another)
    both = all(
        any(w.free and w.said not in CONTACT_VOCABULARY for w in s) for s in (left_a, left_b)
    )
    dropped = {
        id(w) for w in left_a + left_b if w.free and (w.said in CONTACT_VOCABULARY or not both)
    }
    if dropped and len(a) - len(only_a) < MIN_SHARED:
        return False
    if all(id(w) in dropped or w.said in IGNORED_WORDS for w in left_a + left_b):
        return True
    return _same_letters(
        [w.typed for w in a if id(w) not in dropped], [w.typed for w in b if id(w) not in dropped]
    )


#: letters a typo region may span in the texts joined without spaces ("deos" / "does": 2)
TYPO_REGION = 2
#: typo regions allowed per this many letters (at least one)
LETTERS_PER_TYPO = 12


def _same_letters(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether the two word lists, articles out and joined without spaces, differ only by
    scattered typos: every differing region (differences at most 2 letters apart count as one)
    spans at most `TYPO_REGION` letters on each side, holds no digit, touches no word of
    `SHORT_WORD` letters or fewer (the letters of a code, "in" / "on") and is a typo of the
    words it touches (`TYPO_EDITS_PER_LETTER`: "rug" / "ring" is not), and there is at most
    one region per `LETTERS_PER_TYPO` letters. Merged and split words vanish here ("whatd oes"
    / "what does", "myh ome" / "my home"); a word swapped for another does not ("storm" /
    "flood", "car" / "van")."""
    return _same_joined(a, b) or _same_joined(
        [w for w in a if w not in IGNORED_WORDS], [w for w in b if w not in IGNORED_WORDS]
    )


def _same_joined(wa: Sequence[str], wb: Sequence[str]) -> bool:
    """`_same_letters` on one pair of word lists (with, or without, the articles)."""
    ja, jb = "".join(wa), "".join(wb)
    if ja == jb:
        return True
    regions_allowed = max(1, len(ja) // LETTERS_PER_TYPO)
    most = regions_allowed * TYPO_REGION  # no more edits than that many regions hold
    if Levenshtein.distance(ja, jb, score_cutoff=most) > most:
        return False
    lens_a, lens_b = _word_lengths(wa), _word_lengths(wb)
    regions: list[list[int]] = []  # [start_a, end_a, start_b, end_b]
    for op in Levenshtein.opcodes(ja, jb):
        if op.tag == "equal":
            continue
        if regions and op.src_start - regions[-1][1] <= TYPO_REGION:
            regions[-1][1], regions[-1][3] = op.src_end, op.dest_end
        else:
            regions.append([op.src_start, op.src_end, op.dest_start, op.dest_end])
    if len(regions) > regions_allowed:
        return False
    for sa, ea, sb, eb in regions:
        left, right = ja[sa:ea], jb[sb:eb]
        if max(len(left), len(right)) > TYPO_REGION or not (left + right).isalpha():
            return False
        touched_a, touched_b = lens_a[max(0, sa - 1) : ea + 1], lens_b[max(0, sb - 1) : eb + 1]
        if min(touched_a + touched_b) <= SHORT_WORD:
            return False  # "hm" / "tr" in a code, "in" / "on": short words are not typos here
        allowed = max(1, int(max(touched_a + touched_b) * TYPO_EDITS_PER_LETTER))
        if OSA.distance(left, right) > allowed:
            return False  # "rug" / "ring": a word for another, not a typo
    return True


def _word_lengths(words: Sequence[str]) -> list[int]:
    """Per letter of the words joined, the length of its word."""
    return [len(w) for w in words for _ in w]


def _sorted_words(key: str, free: bool) -> str:
    """The words of a key as said, sorted; `free`: with contact wording."""
    return " ".join(sorted(w.said for w in _words(key) if free or not w.free))


def _candidates(queries: Sequence[str], choices: Sequence[str]) -> np.ndarray:
    """token_sort_ratio >= NEAR_THRESHOLD, of the keys with or without their contact wording,
    as a boolean matrix (sorting once here and scoring with `fuzz.ratio` is
    `fuzz.token_sort_ratio`, without re-sorting every pair)."""
    found = _ratio_hits(queries, choices, free=True)
    if not found.size:
        return found
    rows = [i for i, q in enumerate(queries) if FREE in q]  # only these change without it
    cols = [j for j, c in enumerate(choices) if FREE in c]
    found[rows, :] |= _ratio_hits([queries[i] for i in rows], choices, free=False)
    found[:, cols] |= _ratio_hits([choices[j] for j in cols], queries, free=False).T
    return found


def _ratio_hits(queries: Sequence[str], choices: Sequence[str], free: bool) -> np.ndarray:
    if not queries or not choices:
        return np.zeros((len(queries), len(choices)), dtype=bool)
    scores = process.cdist(
        [_sorted_words(q, free) for q in queries],
        [_sorted_words(c, free) for c in choices],
        scorer=fuzz.ratio,
        score_cutoff=NEAR_THRESHOLD,
        dtype=np.uint8,
        workers=1,
    )
    return scores >= NEAR_THRESHOLD


def near_duplicates(keys: Sequence[str]) -> list[int | None]:
    """For each key, in the given order (earliest first), the index of the earliest key of its
    cluster, or None when it is that key (kept). Clusters are the connected pairs
    (`same_question`): two typos of one word ("whta", "hat") are one question through the word
    they both misspell, whatever the order the three come in."""
    cand = _candidates(keys, keys)
    root = list(range(len(keys)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for i, key in enumerate(keys):
        for j in np.flatnonzero(cand[i, :i]):
            a, b = find(i), find(int(j))
            if a != b and same_question(key, keys[j]):
                root[max(a, b)] = min(a, b)
    return [None if find(i) == i else find(i) for i in range(len(keys))]


def matches_any(keys: Sequence[str], others: Sequence[str]) -> list[bool]:
    """For each key, whether it equals or near-duplicates one of `others` (all `near_key`s)."""
    cand = _candidates(keys, others)
    return [
        any(same_question(k, others[j]) for j in np.flatnonzero(cand[i]))
        for i, k in enumerate(keys)
    ]
