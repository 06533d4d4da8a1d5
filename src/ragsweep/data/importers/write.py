"""Writing an imported dataset folder all or nothing: `write_dataset` checks that `--out` may be
written (`data.write.check_out`), then swaps a converted collection into place
once `load_dataset` accepts it (docs/importing.md, "What maps to what").
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ragsweep.data.importers.convert import Converted, ImportReport
from ragsweep.data.write import check_out
from ragsweep.errors import DatasetError, UserError


def write_dataset(converted: Converted, out: str | Path, *, force: bool = False) -> ImportReport:
    """Write a converted collection to folder `out`, all or nothing; return its report.

    Files go to a temporary sibling folder, which is validated with `load_dataset` and then
    swapped in: an interrupted or failed import leaves `out` as it was. See `check_out` for when
    an existing `out` is replaced.
    """
    from ragsweep.data import load_dataset, swap_in_folder

    def validate(folder: Path) -> None:
        try:
            load_dataset(folder)
        except DatasetError as err:  # pragma: no cover - would be an importer bug
            raise UserError(
                f"the imported dataset does not pass validation ({err}); this is a "
                "bug in ragsweep's importer: please report it"
            ) from None

    out = Path(out)
    check_out(out, force)
    swap_in_folder(out, converted.files, validate)
    return replace(converted.report, out=out)
