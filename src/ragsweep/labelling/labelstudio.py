"""A judging sheet as Label Studio tasks, with the labelling config that grades them 0, 1 or 2
(docs/labelling.md, "Label Studio"). The export Label Studio writes back is read by
`ragsweep.labelling.graded.read_graded`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ragsweep.data.write import replace_file
from ragsweep.labelling.graded import LS_CHOICES

#: the sheet columns a task shows
TASK_FIELDS = ("qid", "question", "slice", "document", "section", "clause_version", "clause_text")


def export_tasks(rows: pd.DataFrame, out: Path) -> tuple[int, Path]:
    """Write one task per sheet row (`TASK_FIELDS`) to `out` (JSON) and the labelling config
    beside it (`.xml`); the number of tasks and the config's path."""
    tasks = [{"data": {f: r[f] for f in TASK_FIELDS}} for r in rows.to_dict("records")]
    replace_file(out, json.dumps(tasks, indent=1, ensure_ascii=False) + "\n")
    config = out.with_suffix(".xml")
    replace_file(
        config,
        f"""<View>
  <Header value="$qid ($slice): $question"/>
  <Text name="clause" value="$document $section ($clause_version): $clause_text"/>
  <Choices name="{LS_CHOICES}" toName="clause" choice="single" showInline="true" required="true">
    <Choice value="2" hint="answers the question fully"/>
    <Choice value="1" hint="supports or partly answers it"/>
    <Choice value="0" hint="not relevant"/>
  </Choices>
</View>
""",
    )
    return len(tasks), config
