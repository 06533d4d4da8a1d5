"""The config tree: composing it as `ragsweep [overrides]` does, and building stages from it.

- `compose(overrides)` is the resolved config (the Hydra root is the repository's `conf/`,
  installed as `ragsweep.conf`; the sweep files of `sweeps/` are its `sweep` group).
- `build(node, protocol)` instantiates a `_target_` node and checks the object against the
  stage protocol it must obey, so a wrong class is a one-line error naming the config key, the
  class and the missing method, not a traceback halfway through a run.
- The sweep files are the `sweep` group, seen by Hydra through the config source `SweepFiles`
  below (registered when first needed, `hydra_sees_sweep_files`, not at import): first the
  packaged ones (the repository's `sweeps/`, installed as `ragsweep.conf.sweep`), then a
  user's own `./sweeps/NAME.yaml` in the working folder (`ragsweep -m sweep=NAME`). Hydra
  searches them in that order, so a file of the working folder named like a packaged sweep
  does not replace it. What a sweep file holds: README.md, "Sweeps".
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

import yaml
from hydra.core.object_type import ObjectType
from hydra.errors import HydraException, InstantiationException
from hydra.plugins.config_source import ConfigLoadError, ConfigResult, ConfigSource
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from ragsweep.errors import UserError, first_line, not_yaml

#: the working folder's own sweep files: `./<USER_SWEEPS>/NAME.yaml`
USER_SWEEPS = "sweeps"
SWEEP_GROUP = "sweep"
#: the path of a `ragsweep-sweeps://` search path entry that means the packaged sweep files
PACKAGED = "@package"


class SweepFiles(ConfigSource):
    """A folder of sweep files seen by Hydra as the options of the `sweep` group (and nothing
    else). Search path entries (conf/config.yaml): `ragsweep-sweeps://@package` for the files
    installed with ragsweep, `ragsweep-sweeps://sweeps` for the working folder's own. (Hydra's
    `pkg://` source cannot see the packaged ones in an editable install, where they stay in the
    repository's `sweeps/` beside `conf/`.)"""

    def __init__(self, provider: str, path: str) -> None:
        if "://" not in path:
            path = f"{self.scheme()}://{path}"
        super().__init__(provider=provider, path=path)

    @staticmethod
    def scheme() -> str:
        return "ragsweep-sweeps"

    def _folder(self) -> str:
        if self.path == PACKAGED:
            from importlib.resources import files

            return str(files("ragsweep.conf.sweep"))
        return os.path.realpath(self.path)

    def _real(self, config_path: str) -> str | None:
        """The file or folder behind a path of the config tree, None outside the sweep group."""
        config_path = config_path.strip("/")
        if config_path == SWEEP_GROUP or config_path.startswith(SWEEP_GROUP + "/"):
            return os.path.join(self._folder(), config_path[len(SWEEP_GROUP) :].lstrip("/"))
        return None

    def load_config(self, config_path: str) -> ConfigResult:
        real = self._real(self._normalize_file_name(config_path))
        if real is None or not os.path.isfile(real):
            raise ConfigLoadError(f"Config not found : {config_path}")
        with open(real, encoding="utf-8") as handle:
            header = ConfigSource._get_header_dict(handle.read(512))
            handle.seek(0)
            cfg = OmegaConf.load(handle)
        return ConfigResult(
            config=cfg, path=f"{self.scheme()}://{self.path}", provider=self.provider, header=header
        )

    def available(self) -> bool:
        # always: Hydra warns about an unavailable search path entry, and most working
        # folders have no sweeps/ of their own (the group is then simply empty)
        return True

    def is_group(self, config_path: str) -> bool:
        if config_path.strip("/") == "":
            return True
        real = self._real(config_path)
        return real is not None and os.path.isdir(real)

    def is_config(self, config_path: str) -> bool:
        real = self._real(self._normalize_file_name(config_path))
        return real is not None and os.path.isfile(real)

    def list(self, config_path: str, results_filter: ObjectType | None) -> list[str]:
        if config_path.strip("/") == "":
            return [SWEEP_GROUP] if results_filter != ObjectType.CONFIG and self.available() else []
        real = self._real(config_path)
        if real is None or not os.path.isdir(real):
            return []
        files: list[str] = []
        for name in os.listdir(real):
            if name.endswith(".yaml") and os.path.isfile(os.path.join(real, name)):
                self._list_add_result(
                    files=files,
                    file_path=f"{config_path.strip('/')}/{name}",
                    file_name=name,
                    results_filter=results_filter,
                )
        return sorted(set(files))


def hydra_sees_sweep_files() -> None:
    """Register `SweepFiles` with Hydra (through its public plugin registry; again is a no-op),
    so the `ragsweep-sweeps://` entries of conf/config.yaml's search path resolve.

    Called before anything here composes or lists options, and by `check_group_choices`, which
    the CLI runs before Hydra's app on every command line. Hydra hands the registry to its
    launcher's workers (`Singleton.get_state`), so they need no call of their own.
    """
    from hydra.core.plugins import Plugins

    Plugins.instance().register(SweepFiles)


#: the working folders `use_working_folder` was given in this process, and those it put on
#: sys.path itself (it takes back only what it added)
_WORKING: list[str] = []
_INSERTED: list[str] = []


def use_working_folder(folder: str | os.PathLike[str]) -> None:
    """Make the user's modules in `folder` (the folder ragsweep runs in) importable by
    `_target_`: `_target_: mypkg.MyRetriever` finds ./mypkg.py or ./mypkg/__init__.py.

    The console script's `sys.path` starts with its own bin folder, not the working folder, so
    without this a user's module would import only under `python -m`. A sweep's new worker
    processes inherit `sys.path` (loky sends it), and a worker reused from an earlier sweep calls
    this again (`experiment.worker`). A module imported from this folder, or from the working
    folder of an earlier call in this process, is dropped from `sys.modules` first: a command
    reads the user's files as they are now (after an edit between two sweeps of one notebook or
    one reused worker), and a module of the same name in another folder is not taken for it.
    """
    given = os.path.abspath(folder)
    real = os.path.realpath(given)
    known = {given, real, *_WORKING}
    for name, module in list(sys.modules.items()):
        if _imported_from(module, name, known):
            del sys.modules[name]
    for old in [p for p in _INSERTED if p != real]:
        while old in sys.path:
            sys.path.remove(old)
        _INSERTED.remove(old)
    _WORKING[:] = sorted({given, real})
    if real not in {os.path.realpath(p or os.curdir) for p in sys.path}:
        sys.path.insert(0, real)
        _INSERTED.append(real)
    importlib.invalidate_caches()


def _imported_from(module: Any, name: str, folders: set[str]) -> bool:
    """Whether `module` was imported from one of `folders` as a top-level module or package
    (./name.py, ./name/...), not merely from a file somewhere below them. String work only
    (it runs over every loaded module): `folders` holds each folder as given and resolved."""
    file = getattr(module, "__file__", None)
    if not isinstance(file, str):
        return False
    top = name.split(".", 1)[0]
    for folder in folders:
        if file.startswith(folder + os.sep):
            first = file[len(folder) + 1 :].split(os.sep, 1)
            # ./top/... (a package), or ./top.py, ./top.cpython-311-x86_64.so (a module)
            if first[0] == top if len(first) > 1 else first[0].split(".", 1)[0] == top:
                return True
    return False


def _hydra_error(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).strip().splitlines() if line.strip()]
    return "; ".join(lines[:2]) if lines else type(err).__name__


def compose(overrides: Sequence[str] = (), hydra: bool = False) -> DictConfig:
    """The resolved config for `overrides`, as `ragsweep [overrides]` builds it.

    A bad override (an unknown key, a value of the wrong type, a grammar error) is a one-line
    `UserError` naming it, not Hydra's several lines. `hydra=True` keeps the `hydra` node.
    """
    from hydra import compose as hydra_compose
    from hydra import initialize_config_module

    hydra_sees_sweep_files()
    try:
        with initialize_config_module("ragsweep.conf", version_base="1.3"):
            cfg = hydra_compose("config", overrides=list(overrides), return_hydra_config=hydra)
    except (HydraException, OmegaConfBaseException) as err:
        raise UserError(
            f"bad override: {_hydra_error(err)} (see `ragsweep --cfg job` for the keys)"
        ) from None
    except yaml.YAMLError as err:  # a config or sweep file of the user's that is not YAML
        raise not_yaml(None, err, "fix it (a list is [a, b], a mapping key: value)") from None
    check_complete(cfg)
    return cfg


def check_complete(cfg: DictConfig) -> None:
    """Refuse in one line a composed config that leaves a key `???` (`data.path` of
    `data=folder`), naming the key and how to set it."""
    missing = _missing(cfg)
    if missing:
        raise UserError(
            f"{', '.join(missing)} must be set (its config marks it ???): add "
            f"{missing[0]}=... to the command line, e.g. data=folder data.path=DIR"
        )


def _missing(cfg: DictConfig) -> list[str]:
    """The keys left `???` in a composed config (Hydra's own node aside: it holds
    interpolations that only a running job resolves)."""
    out = []
    for key in cfg:
        if key == "hydra":
            continue
        if OmegaConf.is_missing(cfg, key):
            out.append(str(key))
        elif OmegaConf.is_config(cfg[key]):
            out += list(OmegaConf.missing_keys(cfg[key]))  # full keys: data.path
    return sorted(set(out))  # an interpolated node (retriever.dense.embedder) repeats its keys


def packaged_default(group: str) -> DictConfig:
    """The packaged `conf/<group>/default.yaml`, unresolved: what a command outside Hydra
    (`ragsweep compare`) takes its defaults from, so they are the ones a sweep uses."""
    from importlib.resources import files

    loaded = OmegaConf.load(str(files("ragsweep.conf").joinpath(group, "default.yaml")))
    assert isinstance(loaded, DictConfig)
    return loaded


def group_options(group: str) -> list[str]:
    """The options of a config group, as Hydra finds them through the search path of
    conf/config.yaml (for the sweep group: the packaged sweeps, then ./sweeps/ here); empty
    when `group` is not a group."""
    from hydra import initialize_config_module
    from hydra.core.global_hydra import GlobalHydra

    hydra_sees_sweep_files()
    with initialize_config_module("ragsweep.conf", version_base="1.3"):
        loader = GlobalHydra.instance().config_loader()
        return sorted(set(loader.get_group_options(group, config_name="config")))


def _packaged_option(group: str, option: str) -> bool:
    """Whether ragsweep's own config tree holds `conf/<group>/<option>.yaml`, which Hydra finds
    whatever else the search path holds: such an option needs no listing of its group (8-15 ms
    a group, as `group_options` composes the search path each time)."""
    from importlib.resources import files

    if not re.fullmatch(r"\w[\w-]*", option):
        return False
    return files("ragsweep.conf").joinpath(group, f"{option}.yaml").is_file()


def check_group_choices(args: Sequence[str]) -> None:
    """Refuse `group=option` overrides whose option has no yaml, before Hydra composes.

    Hydra would say so too, over several lines and with exit code 1; ragsweep's rule for bad
    input is one line and exit code 2. Comma-separated sweep values are checked one by one.
    It makes the sweep files visible to Hydra first (`hydra_sees_sweep_files`).
    """
    hydra_sees_sweep_files()
    for arg in args:
        if arg.startswith("-") or "=" not in arg:
            continue
        key, _, value = arg.partition("=")
        group = key.lstrip("+~")
        if "." in group or "/" in group or not value or value == "null":
            continue
        unpackaged = [o for o in value.split(",") if not _packaged_option(group, o)]
        if not unpackaged:
            continue
        options = group_options(group)
        if not options:
            continue
        for option in unpackaged:
            if option not in options:
                where = f"conf/{group}/"
                if group == SWEEP_GROUP:
                    where = f"the packaged sweeps, or ./{USER_SWEEPS}/{option}.yaml here"
                raise UserError(
                    f"unknown {group} {option!r} in override {arg!r}; choose one of: "
                    f"{', '.join(options)} ({where})"
                )


def build(node: Any, protocol: type | None = None, *, where: str = "", **kwargs: Any) -> Any:
    """`hydra.utils.instantiate(node)`, checked against `protocol` (a runtime-checkable
    Protocol naming the stage's methods) when given.

    A `UserError` from a constructor is re-raised as itself (Hydra would wrap "chunker.size must
    be positive" in a multi-line `InstantiationException`); a bad `_target_` or a class missing
    one of the protocol's methods is a one-line `UserError` naming `where` (the config key).
    """
    target = node.get("_target_") if hasattr(node, "get") else None
    label = f"{where} " if where else ""
    try:
        built = instantiate(node, **kwargs)
    except InstantiationException as err:
        cause: BaseException | None = err
        while cause is not None:
            if isinstance(cause, UserError):
                raise cause from None
            cause = cause.__cause__ or cause.__context__
        located = re.search(r"Error locating target '([^']+)'", str(err))
        if located:
            key = f"config key {where}: " if where else ""
            raise UserError(f"{key}{_why_not_found(located[1])}") from None
        lines = [line.strip() for line in str(err).strip().splitlines() if line.strip()]
        message = " ".join(lines[:2]) if lines else type(err).__name__
        raise UserError(
            f"cannot build {label}(_target_ {target!r}) from the config: {message}"
        ) from None
    if protocol is not None:
        check_protocol(built, protocol, f"{label}(_target_ {target!r})")
    return built


def _why_not_found(target: str) -> str:
    """Why `target` (a dotted class path) cannot be located, and the fix, in one line."""
    module, _, name = target.rpartition(".")
    here = os.getcwd()
    top = (module or target).split(".", 1)[0]
    try:
        loaded = importlib.import_module(module) if module else None
    except ModuleNotFoundError as err:
        if err.name and (module == err.name or module.startswith(err.name + ".")):
            return (
                f"cannot import {module or target!r} for _target_ {target!r}: put {top}.py (or a "
                f"package {top}/) in the folder you run ragsweep in ({here}), or install it"
            )
        return f"importing {module!r} for _target_ {target!r} failed: {first_line(err)}"
    except Exception as err:  # the user's module raised while being imported
        return f"importing {module!r} for _target_ {target!r} failed: {first_line(err)}"
    if loaded is None:
        return f"_target_ {target!r} names no class: write it as module.Class"
    where = getattr(loaded, "__file__", None) or module
    return f"module {module!r} ({where}) has no {name!r}: check the spelling of _target_"


def protocol_methods(protocol: type) -> list[str]:
    """The methods a runtime-checkable Protocol asks for, in definition order."""
    return [
        name
        for name, value in vars(protocol).items()
        if callable(value) and not name.startswith("_")
    ]


def _parameters(protocol: type, method: str) -> list[inspect.Parameter]:
    params = inspect.signature(getattr(protocol, method)).parameters.values()
    return [p for p in params if p.name != "self"]


def method_signature(protocol: type, method: str, self: bool = False) -> str:
    """`search(queries, depth, allowed=None)`: a protocol method as ragsweep calls it
    (`self=True` writes it as a definition: `search(self, queries, depth, allowed=None)`)."""
    names = [
        p.name if p.default is p.empty else f"{p.name}={p.default!r}"
        for p in _parameters(protocol, method)
    ]
    return f"{method}({', '.join(['self', *names] if self else names)})"


def _fix(protocol: type, method: str) -> str:
    if method == "fingerprint":
        return "def fingerprint(self) -> dict returning the parameters that change its results"
    return f"def {method_signature(protocol, method, self=True)}"


def check_protocol(obj: Any, protocol: type, what: str) -> None:
    """A one-line `UserError` unless `obj` has every method of `protocol`, each callable the
    way ragsweep calls it (positionally, with every argument of the protocol's method), naming
    the class and the fix."""
    kind = f"{type(obj).__module__}.{type(obj).__qualname__}"
    name = protocol.__name__
    a = "an" if name[0] in "AEIOU" else "a"
    wants = f"{a} {name} needs " + ", ".join(
        method_signature(protocol, m) for m in protocol_methods(protocol)
    )
    missing = [m for m in protocol_methods(protocol) if not callable(getattr(obj, m, None))]
    if missing:
        fixes = "; ".join(_fix(protocol, m) for m in missing)
        raise UserError(
            f"{what} builds a {kind}, which is not {a} {name}: it has no method "
            f"{', '.join(missing)}; add {fixes} ({wants}; see docs/extending.md)"
        )
    for method in protocol_methods(protocol):
        try:
            theirs = inspect.signature(getattr(obj, method))
        except (TypeError, ValueError):  # a builtin without a signature: trust it
            continue
        args = [p.name for p in _parameters(protocol, method)]
        try:
            theirs.bind(*args)
        except TypeError as err:
            raise UserError(
                f"{what} builds a {kind}, whose {method}{theirs} cannot be called as "
                f"{method}({', '.join(args)}) ({err}); define it as `def "
                f"{method_signature(protocol, method, self=True)}` ({wants}; see "
                "docs/extending.md)"
            ) from None
