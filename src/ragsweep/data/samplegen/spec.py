"""The shape of the sample's source: products, parts, clauses and the questions they answer.

The text itself is data (`<product>.yaml`, `shared.yaml`, read by `texts`); these dataclasses
check it when built (a `ValueError` saying what to fix; `texts` adds the file and entry).

A `ClauseDef` describes one clause in every version it exists in. Its `core` sentences carry the
facts (amounts, time limits, cross-references); generic filler from `prose.FILLER` is added by
`wordings.build_documents`. Its `asks` are the questions a policyholder would ask that this clause
answers fully (grade 2); `supports` name the clauses that partly answer them (grade 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: wording versions of every product, oldest first
VERSIONS: tuple[str, ...] = ("2024", "2025")

#: question slices in report order (dataset.json `slices`)
SLICES: tuple[str, ...] = ("limits", "exclusions", "procedures", "definitions", "identifiers")

#: part kinds, in wording order (each has its filler sentences in `filler.yaml`)
KINDS: tuple[str, ...] = (
    "other",
    "definitions",
    "cover",
    "limits",
    "exclusions",
    "claims",
    "conditions",
)

#: fictional insurer printed in every wording
INSURER = "Kestrel General Insurance plc"

#: a core sentence: the same text in every version, or one text per version (missing = omitted)
Core = str | dict[str, str]


@dataclass(frozen=True)
class Ask:
    """Questions (templates in `prose.expand` notation) that the owning clause answers fully."""

    slice: str
    templates: tuple[str, ...]
    supports: tuple[str, ...] = ()  # clauses that partly answer: the exception, a definition
    versions: tuple[str, ...] | None = None  # None: every version the clause exists in
    also: tuple[str, ...] = ()  # other clauses that answer it fully, as well as the owner
    #: the version difference the question turns on: a `values` name whose amount changed, or
    #: "wording" when the clause's text changed; templates may quote the other version's value
    #: as `{other[name]}` ("is my excess still {other[escape_excess]}?")
    hinge: str | None = None
    #: which of the owning clause's `core` sentences (0-based indices) the question asks about;
    #: empty = all of them. A passage that restates all of these answers it (grade 2), one that
    #: restates some of them supports it (grade 1), one that restates only other facts of the
    #: clause does not (grade 0)
    facts: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        _one_of("slice", self.slice, SLICES)
        _versions("versions", self.versions or ())
        if not self.templates:
            raise ValueError("templates: is empty; write at least one question")
        for t in self.templates:
            _balanced(t)
        if any(f < 0 for f in self.facts):
            raise ValueError("facts: an index is negative; count core sentences from 0")


@dataclass(frozen=True)
class ClauseDef:
    """One clause of one product, across versions; `key` is stable, the section number derived."""

    key: str
    heading: str
    thing: str  # the clause topic in policy language, for filler sentences
    core: tuple[Core, ...]
    fill: int = 6  # generic filler sentences to add
    shared: bool = False  # near-verbatim in every product (filler chosen independent of product)
    versions: tuple[str, ...] = VERSIONS
    code_no: int | None = None  # exclusion code number -> `EXC-<P>-<nn>` printed in the text
    lay: str | None = None  # how a policyholder names the clause (for clause-number questions)
    asks: tuple[Ask, ...] = ()
    #: a one-sentence plain-English summary for the product summary sheet (None: glosses.py)
    gloss: str | None = None

    def __post_init__(self) -> None:
        if not self.versions:
            raise ValueError("versions: is empty; list the versions the clause exists in")
        _versions("versions", self.versions)
        if self.fill < 0:
            raise ValueError("fill: is negative; write 0 or more filler sentences")
        for i, core in enumerate(self.core):
            if isinstance(core, dict):
                _versions(f"core[{i}]", tuple(core))
        for n, ask in enumerate(self.asks):
            if any(f >= len(self.core) for f in ask.facts):
                raise ValueError(
                    f"asks[{n}].facts: names a core sentence the clause does not have"
                    f" ({len(self.core)} of them, counted from 0)"
                )


@dataclass(frozen=True)
class PartDef:
    number: str
    title: str
    kind: str
    clauses: tuple[ClauseDef, ...]

    def __post_init__(self) -> None:
        _one_of("kind", self.kind, KINDS)


@dataclass(frozen=True)
class Endorsement:
    code: str
    title: str
    clause: str  # key of the clause whose text applies it
    also: tuple[str, ...] = ()  # other clauses that partly explain it (grade 1)


@dataclass(frozen=True)
class ProductDef:
    """One product: its wording in every version, plus the words its customers use for it."""

    document: str
    code: str  # two-letter code in form, endorsement and exclusion codes (HM, MT, TR)
    title: str
    prod: str  # "home insurance policy"
    asset: str  # "your home"
    forms: dict[str, str]  # version -> form code
    starts: dict[str, str]  # version -> first start/renewal date the form applies to
    lay_names: tuple[str, ...]  # "my house insurance"
    values: dict[str, str | tuple[str, str]]  # placeholder -> value, or (2024, 2025) values
    endorsements: tuple[Endorsement, ...]
    parts: tuple[PartDef, ...] = field(default=())

    def __post_init__(self) -> None:
        for name in ("forms", "starts"):
            if tuple(getattr(self, name)) != VERSIONS:
                raise ValueError(
                    f"{name}: give one entry per version, in order: {', '.join(VERSIONS)}"
                )


def _one_of(name: str, value: str, known: tuple[str, ...]) -> None:
    if value not in known:
        raise ValueError(f"{name}: unknown {name} {value!r}; use one of {', '.join(known)}")


def _versions(name: str, versions: tuple[str, ...]) -> None:
    unknown = [v for v in versions if v not in VERSIONS]
    if unknown:
        raise ValueError(
            f"{name}: unknown version {unknown[0]!r}; use {', '.join(VERSIONS)} (quoted)"
        )


def _balanced(template: str) -> None:
    """Alternation groups `<a|b>` open and close in turn, never nested."""
    depth = 0
    for ch in template:
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if depth not in (0, 1):
            raise ValueError("templates: a <...|...> group is nested or closed twice; fix it")
    if depth:
        raise ValueError("templates: a <...|...> group is not closed; add the >")
