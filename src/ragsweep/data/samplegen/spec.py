"""The shape of the sample's source: products, parts, clauses and the questions they answer.

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


@dataclass(frozen=True)
class PartDef:
    number: str
    title: str
    kind: str
    clauses: tuple[ClauseDef, ...]


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
