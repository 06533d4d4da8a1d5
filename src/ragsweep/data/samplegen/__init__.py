"""The built-in sample dataset: a fictional insurer's versioned policy wordings, a 400-question
labelled set, a raw query log and a review sample, all generated deterministically from a seed.

`generate(out, seed)` writes a dataset folder in the schema of `docs/schema.md`; the committed
copy under `ragsweep/data/sample` is `generate(..., seed=0)`. See `docs/sample.md`.
"""

from ragsweep.data.samplegen.generate import GENERATOR_VERSION, build_files, generate

__all__ = ["GENERATOR_VERSION", "build_files", "generate"]
