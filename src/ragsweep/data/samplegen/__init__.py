"""The built-in sample dataset's source: a fictional insurer's versioned policy wordings with
their schedules, summaries, FAQs and endorsement booklets, and a raw query log, each generated
deterministically from a seed, with the truth behind them (which passage states which clause's
facts, what each log entry asked).

`ragsweep.labelling.sample_build` turns them into the labelled set with the product's own
`labels sample` and `labels pool`; the committed copy under `ragsweep/data/sample` is its
output for seed 0. See `docs/sample.md`.
"""

from ragsweep.data.samplegen.generate import GENERATOR_VERSION, assemble, write_dataset

__all__ = ["GENERATOR_VERSION", "assemble", "write_dataset"]
