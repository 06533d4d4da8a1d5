"""The sample's text, read from the YAML files beside this module: each product's wording and
questions (`home.yaml`, `motor.yaml`, `travel.yaml`, with `shared.yaml` for the clauses every
product prints) into the dataclasses of `spec` that check it, and the tables of filler
sentences, glosses, schedule labels, identifier questions and the query log's wording. Each
sentence or template is one line, so `grep` finds any phrase; a file that does not fit is refused
in one line naming the file, the entry and the fix. See docs/sample.md.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from importlib import resources
from typing import Any

import yaml

from ragsweep.data.samplegen.spec import ClauseDef, PartDef, ProductDef
from ragsweep.errors import UserError, not_yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Misfit(Exception):
    """Where (a path into the YAML tree) and what is wrong; `read` adds the file name."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(where, problem)
        self.where = where
        self.problem = problem


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _kind(value: object) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: "text", bool: "true/false"}.get(
        type(value), "a number"
    )


def _union(value: Any, arms: tuple[Any, ...], where: str) -> Any:
    """The arm of a union whose shape the value has (text, list, mapping, number, nothing)."""
    for arm in arms:
        shape = typing.get_origin(arm) or arm
        if (
            (value is None and arm is types.NoneType)
            or (isinstance(value, list) and shape is tuple)
            or (isinstance(value, dict) and (shape is dict or dataclasses.is_dataclass(shape)))
            or (isinstance(value, str) and shape is str)
            or (type(value) is int and shape is int)
        ):
            return convert(value, arm, where)
    wanted = " or ".join(_kind(_example(a)) for a in arms)
    raise _Misfit(where, f"expected {wanted}, got {_kind(value)}")


def _example(tp: Any) -> object:
    """A value of the shape `tp` wants, for naming that shape in an error."""
    shape = typing.get_origin(tp) or tp
    return {str: "", int: 0, bool: True, tuple: [], dict: {}, types.NoneType: None}.get(shape, {})


def convert(value: Any, tp: Any, where: str) -> Any:
    """`value` parsed from YAML as type `tp` (text, int, bool, None, unions, `tuple[X, ...]`,
    fixed tuples, `dict[K, V]`, dataclasses of text); lists become tuples. `_Misfit` if the
    shape differs or a dataclass refuses the value."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return _union(value, args, where)
    if dataclasses.is_dataclass(tp):
        return _dataclass(value, tp, where)
    if origin is tuple:
        if not isinstance(value, list):
            raise _Misfit(where, f"expected a list, got {_kind(value)}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(convert(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise _Misfit(where, f"expected a list of {len(args)} items, got {len(value)}")
        return tuple(
            convert(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(value, args, strict=True))
        )
    if origin is dict:
        if not isinstance(value, dict):
            raise _Misfit(where, f"expected a mapping, got {_kind(value)}")
        return {
            convert(k, args[0], f"{where} key {k}"): convert(v, args[1], _join(where, str(k)))
            for k, v in value.items()
        }
    if tp is types.NoneType and value is None:
        return None
    if tp in (str, bool) and type(value) is tp or tp is int and type(value) is int:
        return value
    fix = "; quote it" if tp is str and value is not None else ""
    raise _Misfit(where, f"expected {_kind(_example(tp))}, got {_kind(value)}{fix}")


@functools.cache
def _fields(cls: type) -> tuple[dict[str, Any], dict[str, dataclasses.Field]]:
    """A dataclass's resolved type hints and its fields by name (resolving is slow: once)."""
    return typing.get_type_hints(cls), {f.name: f for f in dataclasses.fields(cls)}


def _dataclass(value: Any, cls: type, where: str) -> Any:
    if not isinstance(value, dict):
        raise _Misfit(where, f"expected a mapping with {cls.__name__}'s fields, got {_kind(value)}")
    hints, fields = _fields(cls)
    unknown = [k for k in value if k not in fields]
    if unknown:
        raise _Misfit(where, f"unknown field {unknown[0]!r} (fields: {', '.join(fields)})")
    missing = [
        name
        for name, f in fields.items()
        if name not in value
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise _Misfit(where, f"field {missing[0]!r} is missing; add it")
    kwargs = {k: convert(v, hints[k], _join(where, k)) for k, v in value.items()}
    try:
        return cls(**kwargs)
    except ValueError as err:
        raise _Misfit(where, str(err)) from None


@functools.cache
def read(name: str) -> Any:
    """The parsed YAML of the packaged file `name` (e.g. `home.yaml`), parsed once; not to be
    changed in place."""
    return parse(name, resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


def parse(name: str, text: str) -> Any:
    """`text` (the file `name`) parsed as YAML; `UserError` naming the file and line if not."""
    try:
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as err:
        raise not_yaml(name, err, "fix the syntax") from None


def load(name: str, key: str, tp: Any) -> Any:
    """Entry `key` of the packaged file `name`, as type `tp`; `UserError` naming file and entry."""
    data = read(name)
    try:
        if not isinstance(data, dict) or key not in data:
            raise _Misfit(key, "is missing; add it at the top level of the file")
        return convert(data[key], tp, key)
    except _Misfit as err:
        raise UserError(_line(name, err)) from None


def _line(name: str, err: _Misfit) -> str:
    return f"{name}: {err.where}: {err.problem}" if err.where else f"{name}: {err.problem}"


@functools.cache
def shared_clauses() -> dict[str, ClauseDef]:
    """The clauses every product prints almost verbatim (`shared.yaml`), by key."""
    clauses = load("shared.yaml", "clauses", tuple[ClauseDef, ...])
    out: dict[str, ClauseDef] = {}
    for i, clause in enumerate(clauses):
        if clause.key in out:
            raise UserError(
                f"shared.yaml: clauses[{i}]: key {clause.key!r} is used twice; rename one"
            )
        out[clause.key] = clause
    return out


def product(document: str) -> ProductDef:
    """The product `document` (`home`, `motor`, `travel`) from `<document>.yaml`: a clause entry
    `include: KEY` stands for the clause KEY of `shared.yaml`. Every clause key a clause, ask or
    endorsement names must be a clause of the product."""
    name = f"{document}.yaml"
    data = read(name)
    shared = shared_clauses()
    try:
        if not isinstance(data, dict):
            raise _Misfit("", f"expected a mapping with ProductDef's fields, got {_kind(data)}")
        parts = data.get("parts")
        if not isinstance(parts, list):
            raise _Misfit("parts", f"expected a list, got {_kind(parts)}")
        head = convert({k: v for k, v in data.items() if k != "parts"}, ProductDef, "")
        prod = dataclasses.replace(
            head, parts=tuple(_part(p, shared, f"parts[{i}]") for i, p in enumerate(parts))
        )
        _check_keys(prod)
    except _Misfit as err:
        raise UserError(_line(name, err)) from None
    if prod.document != document:
        raise UserError(f"{name}: document: is {prod.document!r}; write {document!r}")
    return prod


def _part(part: Any, shared: dict[str, ClauseDef], where: str) -> PartDef:
    """One part; its clause entries are clauses or `include: KEY` of a shared clause."""
    clauses = part.get("clauses") if isinstance(part, dict) else None
    if not isinstance(clauses, list):
        return convert(part, PartDef, where)  # refused with what is wrong
    built = []
    for j, entry in enumerate(clauses):
        at = _at(where, j, entry)
        if isinstance(entry, dict) and "include" in entry:
            if len(entry) != 1 or entry["include"] not in shared:
                raise _Misfit(at, "include: names no clause of shared.yaml; write one of its keys")
            built.append(shared[entry["include"]])
        else:
            built.append(convert(entry, ClauseDef, at))
    return dataclasses.replace(
        convert({**part, "clauses": []}, PartDef, where), clauses=tuple(built)
    )


def _at(where: str, j: int, clause: Any) -> str:
    key = clause.get("key") if isinstance(clause, dict) else None
    return f"{where}.clauses[{j}]" + (f" ({key})" if isinstance(key, str) else "")


def _check_keys(prod: ProductDef) -> None:
    """Clause keys are unique and every key a clause, ask or endorsement cites exists."""
    keys: set[str] = set()
    for i, part in enumerate(prod.parts):
        for j, c in enumerate(part.clauses):
            if c.key in keys:
                raise _Misfit(
                    f"parts[{i}].clauses[{j}]", f"key {c.key!r} is used twice; rename one"
                )
            keys.add(c.key)
    for i, part in enumerate(prod.parts):
        for j, c in enumerate(part.clauses):
            for n, ask in enumerate(c.asks):
                for name in ("supports", "also"):
                    for key in getattr(ask, name):
                        if key not in keys:
                            raise _Misfit(
                                f"parts[{i}].clauses[{j}] ({c.key}).asks[{n}].{name}",
                                f"{key!r} is no clause of this product; write an existing key",
                            )
    for i, e in enumerate(prod.endorsements):
        for key in (e.clause, *e.also):
            if key not in keys:
                raise _Misfit(
                    f"endorsements[{i}] ({e.code})",
                    f"{key!r} is no clause of this product; write an existing key",
                )
