"""Building stage objects from config nodes, with user errors kept as user errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hydra.errors import HydraException, InstantiationException
from hydra.utils import instantiate
from omegaconf import DictConfig
from omegaconf.errors import OmegaConfBaseException

from ragsweep.errors import UserError


def build(node: Any, **kwargs: Any) -> Any:
    """`hydra.utils.instantiate(node)`, re-raising a `UserError` from the constructor as itself.

    Hydra wraps constructor errors in `InstantiationException`, which would turn "chunker.size
    must be positive" into a multi-line traceback-like message; a bad `_target_` becomes a
    one-line `UserError` naming it.
    """
    try:
        return instantiate(node, **kwargs)
    except InstantiationException as err:
        cause: BaseException | None = err
        while cause is not None:
            if isinstance(cause, UserError):
                raise cause from None
            cause = cause.__cause__ or cause.__context__
        target = node.get("_target_") if hasattr(node, "get") else None
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise UserError(f"cannot build {target!r} from the config: {first}") from None


def compose(overrides: Sequence[str] = (), hydra: bool = False) -> DictConfig:
    """The resolved config for `overrides`, as `ragsweep [overrides]` builds it.

    A bad override (an unknown key, a value of the wrong type, a grammar error) is a one-line
    `UserError` naming it, not Hydra's several lines. `hydra=True` keeps the `hydra` node.
    """
    from hydra import compose as hydra_compose
    from hydra import initialize_config_module

    try:
        with initialize_config_module("ragsweep.conf", version_base="1.3"):
            return hydra_compose("config", overrides=list(overrides), return_hydra_config=hydra)
    except (HydraException, OmegaConfBaseException) as err:
        lines = [line.strip() for line in str(err).strip().splitlines() if line.strip()]
        detail = "; ".join(lines[:2]) if lines else type(err).__name__
        raise UserError(f"bad override: {detail} (see `ragsweep --cfg job` for the keys)") from None
