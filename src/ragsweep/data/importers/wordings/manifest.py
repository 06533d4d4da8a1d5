"""What each wording file is: document id, version, product, effective date (and optionally
form code and title), from a manifest yaml or, for Markdown, the file's front matter.

```yaml
# manifest.yaml (in the --source folder, or --manifest FILE)
wordings:
  - file: home-2025.md
    document: home            # [a-z0-9][a-z0-9_.-]*
    version: "2025"           # [A-Za-z0-9][A-Za-z0-9_.-]*; quote it ("1.10" is not 1.1)
    product: home             # optional (null when absent)
    effective: 2025-01-01     # the date the version applies from, YYYY-MM-DD
    form_code: HH-PW-2025/01  # optional
    title: Home Insurance     # optional: else the wording's own first heading
```

A Markdown file may carry the same fields (without `file`) as YAML front matter between `---`
lines at its top; a field given in both places must agree. Every wording file of the format in
the folder must be described, every file the manifest names must be there, and (document,
version) is unique. The versions of one document must sort (`version_key`) in the order of
their effective dates, because `ragsweep labels check` carries labels from older to newer
versions by that order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from ragsweep.data.schema import DOCUMENT_RE, VERSION_RE, version_key
from ragsweep.errors import DatasetError, not_yaml

#: the fields of a wording's description; `file` only in the manifest
FIELDS = ("file", "document", "version", "product", "effective", "form_code", "title")
REQUIRED = ("document", "version", "effective")
#: manifest file names looked for in the --source folder
MANIFEST_NAMES = ("manifest.yaml", "manifest.yml")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class WordingMeta:
    """What one wording file is (see the module docstring); `described` says where."""

    path: Path
    document: str
    version: str
    product: str | None
    effective: str
    form_code: str | None
    title: str | None
    described: tuple[str, int]  # the manifest entry or front matter (file, line) describing it
    places: dict[str, tuple[str, int]]  # field -> (file, line) where it was given

    def place(self, key: str) -> tuple[str, int]:
        """Where field `key` was given (the description's start when it was not)."""
        return self.places.get(key, self.described)

    @property
    def doc_id(self) -> str:
        """`document@version`."""
        return f"{self.document}@{self.version}"


class _Map(dict):
    """A YAML mapping that remembers the line it starts on and each key's line."""

    line: int = 0
    key_lines: dict[str, int]


class _Duplicate(Exception):
    def __init__(self, key: Any, line: int) -> None:
        super().__init__(key, line)
        self.key, self.line = key, line


class _Loader(yaml.SafeLoader):
    """SafeLoader whose mappings refuse a repeated key and know their lines."""


def _mapping(loader: _Loader, node: yaml.MappingNode) -> _Map:
    key_lines: dict[str, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in key_lines:
            raise _Duplicate(key, key_node.start_mark.line + 1)
        key_lines[key] = key_node.start_mark.line + 1
    out = _Map(yaml.SafeLoader.construct_mapping(loader, node, deep=True))
    out.line = node.start_mark.line + 1
    out.key_lines = key_lines
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def _shift(value: Any, by: int) -> None:
    """Move the lines recorded in `value`'s mappings down by `by` (front matter starts on the
    file's second line)."""
    if isinstance(value, _Map):
        value.line += by
        value.key_lines = {k: n + by for k, n in value.key_lines.items()}
        for v in value.values():
            _shift(v, by)
    elif isinstance(value, list):
        for v in value:
            _shift(v, by)


def load_yaml(text: str, path: str, first_line: int = 1) -> Any:
    """Parse YAML, refusing repeated keys; errors name `path` and the line (`first_line` is the
    file line where `text` starts)."""
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
        _shift(data, first_line - 1)
        return data
    except _Duplicate as dup:
        raise DatasetError(
            path,
            f"key {dup.key!r} appears twice in one mapping; keep one",
            line=dup.line + first_line - 1,
        ) from None
    except yaml.YAMLError as err:
        raise not_yaml(path, err, "fix the syntax", starts_at=first_line) from None


def split_front_matter(text: str) -> tuple[str | None, str]:
    """(front matter YAML or None, the text with the front matter lines blanked): blanking
    keeps the body's line numbers those of the file."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None, text
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return "\n".join(lines[1:i]), "\n" * i + "\n".join(lines[i + 1 :])
    return None, text


def find_manifest(source: Path, manifest: str | Path | None) -> Path | None:
    """The manifest to use: `manifest` when given, else manifest.yaml (or .yml) in `source`."""
    if manifest is not None:
        return Path(manifest)
    return next((source / n for n in MANIFEST_NAMES if (source / n).is_file()), None)


def read_manifest(path: Path) -> dict[str, _Map]:
    """The manifest's entries by file name."""
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DatasetError(name, "no such file; give the manifest yaml") from None
    except UnicodeDecodeError:
        raise DatasetError(name, "not UTF-8; save it as UTF-8") from None
    data = load_yaml(text, name)
    if not isinstance(data, dict) or set(data) != {"wordings"}:
        raise DatasetError(
            name,
            "expected one key, 'wordings', holding a list of {file, document, version, "
            "product, effective}; see docs/importing.md",
        )
    entries = data["wordings"]
    if not isinstance(entries, list) or not entries:
        raise DatasetError(
            name, "field 'wordings' must be a non-empty list, one item per wording file"
        )
    out: dict[str, _Map] = {}
    for entry in entries:
        if not isinstance(entry, _Map):
            raise DatasetError(
                name, "each item of 'wordings' must be a mapping (file: ..., document: ...)"
            )
        _known_keys(entry, name, FIELDS)
        file = entry.get("file")
        if not isinstance(file, str) or not file.strip():
            raise DatasetError(
                name, "missing or empty; name the wording file", line=entry.line, field="file"
            )
        if "/" in file or "\\" in file:
            raise DatasetError(
                name,
                f"{file!r} is not a plain file name; wordings sit in the --source folder itself",
                line=entry.line,
                field="file",
            )
        if file in out:
            raise DatasetError(
                name,
                f"{file!r} is listed twice (first on line {out[file].line}); keep one entry",
                line=entry.line,
                field="file",
            )
        out[file] = entry
    return out


def _known_keys(entry: _Map, path: str, allowed: tuple[str, ...]) -> None:
    for key in entry:
        if key not in allowed:
            raise DatasetError(
                path,
                f"unknown field; allowed: {', '.join(allowed)}",
                line=entry.key_lines.get(key, entry.line),
                field=str(key),
            )


def _value(value: Any, key: str, path: str, line: int) -> str | None:
    """A field's value as a string (None for an absent or null optional field)."""
    if value is None:
        return None
    if key == "effective":
        if isinstance(value, date):
            return value.isoformat()
        ok = isinstance(value, str) and bool(_DATE.fullmatch(value))
        if ok:
            try:
                date.fromisoformat(value)
            except ValueError:
                ok = False
        if not ok:
            raise DatasetError(
                path, f"{value!r} is not a date; write YYYY-MM-DD", line=line, field=key
            )
        return str(value)
    if key == "version" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if key == "version" and isinstance(value, float):
        raise DatasetError(
            path,
            f'{value!r} was read as a number; quote it (version: "...") so it is kept as written',
            line=line,
            field=key,
        )
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(path, "must be a non-empty string", line=line, field=key)
    return value.strip()


def describe(
    path: Path, entry: _Map | None, entry_path: Path | None, front: _Map | None
) -> WordingMeta:
    """The description of wording file `path` from its manifest entry and/or front matter."""
    fields: dict[str, tuple[str | None, str, int]] = {}  # key -> (value, file, line)
    sources = []
    if entry is not None and entry_path is not None:
        sources.append((entry, str(entry_path)))
    if front is not None:
        _known_keys(front, str(path), FIELDS[1:])
        sources.append((front, str(path)))
    for mapping, where in sources:
        for key in FIELDS[1:]:
            if key not in mapping:
                continue
            line = mapping.key_lines.get(key, mapping.line)
            value = _value(mapping[key], key, where, line)
            if key in fields and fields[key][0] != value:
                prev = fields[key]
                raise DatasetError(
                    where,
                    f"{value!r} differs from {prev[0]!r} given at {prev[1]}:{prev[2]}; give "
                    "it once, or make the two agree",
                    line=line,
                    field=key,
                )
            fields[key] = (value, where, line)
    if not sources:
        front_ok = path.suffix.lower() in (".md", ".markdown")
        raise DatasetError(
            path,
            "no description: list it in the manifest (file, document, version, product, "
            "effective)"
            + (", give it YAML front matter" if front_ok else "")
            + " or move it out of the folder",
        )
    where, line = (str(entry_path), entry.line) if entry is not None else (str(path), front.line)
    for key in REQUIRED:
        if fields.get(key, (None,))[0] is None:
            raise DatasetError(where, f"missing for {path.name}; add it", line=line, field=key)
    got = {k: v[0] for k, v in fields.items()}
    for key, pattern in (("document", DOCUMENT_RE), ("version", VERSION_RE)):
        if not pattern.fullmatch(got[key] or ""):
            value, file, at = fields[key]
            raise DatasetError(
                file,
                f"{value!r} does not match {pattern.pattern}; "
                + (
                    "use lower case letters, digits, '_', '.', '-'"
                    if key == "document"
                    else "use letters, digits, '_', '.', '-'"
                ),
                line=at,
                field=key,
            )
    return WordingMeta(
        path=path,
        document=str(got["document"]),
        version=str(got["version"]),
        product=got.get("product"),
        effective=str(got["effective"]),
        form_code=got.get("form_code"),
        title=got.get("title"),
        described=(where, line),
        places={k: (v[1], v[2]) for k, v in fields.items()},
    )


def check_versions(metas: list[WordingMeta]) -> None:
    """(document, version) unique; each document's versions in the order of their dates."""
    first: dict[tuple[str, str], WordingMeta] = {}
    for m in metas:
        key = (m.document, m.version)
        if key in first:
            file, line = m.place("version")
            raise DatasetError(
                file,
                f"{m.path.name} and {first[key].path.name} are both {m.doc_id}; give each "
                "wording version its own version",
                line=line,
                field="version",
            )
        first[key] = m
    by_doc: dict[str, list[WordingMeta]] = {}
    for m in metas:
        by_doc.setdefault(m.document, []).append(m)
    for versions in by_doc.values():
        ordered = sorted(versions, key=lambda m: version_key(m.version))
        for older, newer in zip(ordered, ordered[1:], strict=False):
            if older.effective >= newer.effective:
                file, line = newer.place("effective")
                raise DatasetError(
                    file,
                    f"version {newer.version!r} sorts after {older.version!r} but its effective "
                    f"date {newer.effective} is not later than {older.effective}; name versions "
                    "so that they sort by date (e.g. 2025, 2025.2), as labels are carried from "
                    "older to newer versions in that order",
                    line=line,
                    field="effective",
                )
