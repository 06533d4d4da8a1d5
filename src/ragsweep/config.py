"""Building stage objects from config nodes, with user errors kept as user errors."""

from __future__ import annotations

from typing import Any

from hydra.errors import InstantiationException
from hydra.utils import instantiate

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
