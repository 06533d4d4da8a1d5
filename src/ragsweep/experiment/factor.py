"""What a multirun command line sweeps: the one factor, its values and its baseline, from the
sweep file `sweep=NAME` names (its `sweep:` block, or `hydra.sweeper.params`) or from the one key
given several values; refused in one line when it is not one pipeline setting (README, "Sweeps").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.config import compose
from ragsweep.errors import UserError, first_line


def _overrides(args: Sequence[str]) -> list[str]:
    """The overrides of a command line: flags (`-m`, Hydra's `--...`) stay out of composition."""
    return [a for a in args if not a.startswith("-")]


def _default_value(fixed: Sequence[str], factor: str) -> str:
    cfg = compose(fixed, hydra=True)
    choices = cfg.hydra.runtime.choices
    if factor in choices:
        return str(choices[factor])
    absent = object()
    value = OmegaConf.select(cfg, factor, default=absent, throw_on_missing=False)
    if value is absent:
        raise UserError(
            f"sweep factor {factor!r} is not a key of the config; see `ragsweep --cfg job`"
        )
    # a key configured as null (embedder.dimensions: the model's own) has null as baseline,
    # as Hydra's grammar reads it back
    return "null" if value is None else str(value)


def _check_factor_key(factor: str) -> None:
    if cv.decides_nothing(factor):
        raise UserError(f"{factor} does not change results; sweep a pipeline setting instead")
    if cv.block_of(factor) in cv.SCORING_BLOCKS:
        raise UserError(
            f"{factor} changes the data or how results are scored, so its configurations would "
            "not be comparable; a sweep varies the retrieval pipeline (chunker, embedder, "
            "retriever, fusion, reranker)"
        )


#: what a sweep file holds under `sweep:` (sweeps/chunk_size.yaml)
SWEEP_KEYS = ("name", "factor", "values", "baseline")
#: where a sweep file written the Hydra way lists its factor's values
HYDRA_PARAMS = "hydra.sweeper.params"


def _chosen(fixed: Sequence[str]) -> str:
    """The sweep file a command line names (`sweep=NAME`), or ""."""
    return next((o.partition("=")[2] for o in fixed if o.partition("=")[0] == "sweep"), "")


def _where(fixed: Sequence[str]) -> str:
    chosen = _chosen(fixed)
    return f"sweep file {chosen or '?'} (sweeps/{chosen or '<name>'}.yaml)"


def _sweep_file(block: Any, fixed: Sequence[str]) -> tuple[str, str, list[str], str]:
    """(name, factor, values, baseline) of the sweep file a command line names, checked: each
    key present, `values` a list of at least one value; else a one-line UserError naming the
    file and the fix."""
    where = _where(fixed)
    if OmegaConf.is_dict(block) and ("sweep" in block or "hydra" in block) and "name" not in block:
        raise UserError(
            f"{where} lacks its first line `# @package _global_`: add it, so its `sweep:` block "
            f"(or {HYDRA_PARAMS}) and its overrides apply to the whole config"
        )
    absent = [k for k in SWEEP_KEYS if not OmegaConf.is_dict(block) or k not in block]
    if absent:
        raise UserError(
            f"{where} has no {', '.join(absent)} under `sweep:`; it needs name, factor (the "
            "config key it changes), values (a list) and baseline (sweeps/chunk_size.yaml)"
        )
    if not OmegaConf.is_list(block["values"]) or len(block["values"]) == 0:
        raise UserError(
            f"{where}: values must be a list of the factor's values, e.g. values: [128, 256]"
        )
    values = [str(v) for v in block["values"]]
    return str(block["name"]), str(block["factor"]), values, str(block["baseline"])


def _hydra_params(cfg: DictConfig, fixed: Sequence[str]) -> tuple[str, list[str]] | None:
    """(factor, values) of a sweep file written the Hydra way, `hydra.sweeper.params` holding
    one key and its values in Hydra's sweep syntax (`chunker.size: 64,128,256`), read as Hydra's
    basic sweeper reads it; None when the config has no such params. Anything else is a
    one-line UserError naming the file and the fix."""
    params = OmegaConf.select(cfg, HYDRA_PARAMS, default=None)
    if not params:
        return None
    where = _where(fixed)
    lines = []
    for key, value in params.items():
        if OmegaConf.is_config(value):  # Hydra would run a YAML list as one value
            raise UserError(
                f"{where}: {HYDRA_PARAMS}.{key} is a YAML list or mapping; write the values "
                f"in Hydra's sweep syntax, e.g. {key}: 64,128,256"
            )
        lines.append(f"{key}={value}")
    parsed = _parse_overrides(lines, f"{where}: cannot parse {HYDRA_PARAMS} (key: v1,v2,v3)")
    if len(parsed) > 1:
        keys = ", ".join(o.get_key_element() for o in parsed)
        raise UserError(
            f"a sweep changes one thing, but {where} varies {len(parsed)} keys in "
            f"{HYDRA_PARAMS} ({keys}): keep one, and set the others as config values in the file"
        )
    (override,) = parsed
    key = override.get_key_element()
    if key != key.lstrip("+~"):
        raise UserError(
            f"{where}: {HYDRA_PARAMS} sweeps {key}, a key the config does not hold; set its "
            f"default in the file ({key.lstrip('+~')}: ...) and sweep {key.lstrip('+~')}"
        )
    if not override.is_sweep_override():
        raise UserError(
            f"{where}: {HYDRA_PARAMS}.{key} has one value; give several ({key}: 64,128,256), "
            "or set a fixed value as a config value in the file"
        )
    return key, [str(v) for v in override.sweep_string_iterator()]


def _parse_overrides(lines: Sequence[str], what: str) -> list[Any]:
    """Hydra's parsed overrides of `lines`; a grammar error (several lines from Hydra) is a
    one-line UserError starting with `what`."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        return list(OverridesParser.create().parse_overrides(list(lines)))
    except Exception as err:
        raise UserError(f"{what}: {first_line(err)}") from None


def expand(args: Sequence[str]) -> tuple[str | None, str, list[str], str, list[str]]:
    """(sweep name, factor, values, baseline, fixed overrides) of a multirun command line.

    The factor and its values come from the sweep file `sweep=NAME` names (its `sweep:` block,
    or `hydra.sweeper.params`, whose baseline is the value the config holds), or from the one
    key the command line gives several values; command-line values replace the file's.
    Refuses (UserError) a sweep that varies no key or two or more keys, sweeping over sweep
    files themselves, and a factor that decides nothing or changes how results are scored.
    """
    overrides = _overrides(args)
    parsed = _parse_overrides(overrides, "cannot parse the overrides")
    varying = [o for o in parsed if o.is_sweep_override()]
    fixed = [o.input_line for o in parsed if not o.is_sweep_override()]
    if any(o.get_key_element().lstrip("+~") == "sweep" for o in varying):
        raise UserError("sweep one sweep file at a time: `ragsweep -m sweep=chunk_size`")
    name = baseline = factor = None
    values: list[str] = []
    cfg = compose(fixed, hydra=True)
    if cfg.get("sweep") and OmegaConf.select(cfg, HYDRA_PARAMS, default=None):
        raise UserError(
            f"{_where(fixed)} holds both a `sweep:` block and {HYDRA_PARAMS}: keep one form "
            f"(the `sweep:` block, or {HYDRA_PARAMS} with the baseline as the config's value)"
        )
    if cfg.get("sweep"):
        name, factor, values, baseline = _sweep_file(cfg.sweep, fixed)
    elif (params := _hydra_params(cfg, fixed)) is not None:
        name = _chosen(fixed) or None
        factor, values = params
    keys = sorted({o.get_key_element().lstrip("+~") for o in varying})
    if factor is not None and keys and keys != [factor]:
        extra = [k for k in keys if k != factor]
        raise UserError(
            f"a sweep changes one thing; sweep {name!r} varies {factor} and the command line also "
            f"varies {', '.join(extra)}: drop those values or run a separate sweep"
        )
    if factor is None and len(keys) > 1:
        raise UserError(
            f"a sweep changes one thing, but this one varies {len(keys)} config keys: "
            f"{', '.join(keys)}; give several values to one key only"
        )
    if factor is None and not keys:
        raise UserError(
            "nothing to sweep: name a sweep file (`ragsweep -m sweep=chunk_size`) or give one "
            "key several values (`ragsweep -m chunker.size=128,256,512`)"
        )
    for o in varying:  # command-line values replace the file's
        factor = o.get_key_element().lstrip("+~")
        values = [str(v) for v in o.sweep_string_iterator()]
    assert factor is not None
    _check_factor_key(factor)
    if baseline is None and factor_prefix(args, factor):
        # a key the config does not hold yet (`+retriever.mine.n=3,4`, a parameter of the
        # user's own class): there is no default to compare with, so the first value is it
        known = OmegaConf.select(compose(fixed), factor, default=None, throw_on_missing=False)
        baseline = str(known) if known is not None else values[0]
    if baseline is None:
        baseline = _default_value(fixed, factor)
    twice = sorted({v for v in values if values.count(v) > 1})
    if twice:
        raise UserError(
            f"the values of {factor} list {', '.join(twice)} more than once; list each value once"
        )
    if baseline not in values:
        values = [baseline, *values]
    return name, factor, values, baseline, fixed


def factor_prefix(args: Sequence[str], factor: str) -> str:
    """`+` or `++` when the command line adds the factor's key (`+retriever.mine.n=3,4`: a
    key the config does not hold), else "". Every configuration is composed, and every job
    run, with the same prefix."""
    for a in _overrides(args):
        key = a.partition("=")[0]
        if key.lstrip("+~") == factor and key.startswith("+"):
            return key[: len(key) - len(key.lstrip("+"))]
    return ""
