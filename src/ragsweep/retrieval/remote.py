"""Embeddings from any OpenAI-compatible endpoint: `embedder=openai_compatible`.

`POST {base_url}/embeddings` through `ragsweep.endpoint` (the `openai` client, the key from the
environment, the retry policy), missing texts in batches on a thread pool, each text's vector
cached on disk per model (`EmbeddingCache`) so configurations sharing the embedder pay once;
rows L2-normalised here, blank texts the zero vector without a request. docs/extending.md
("An OpenAI-compatible embeddings endpoint") explains the options, cache and errors.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from ragsweep.endpoint import Endpoint, RetryPolicy, clip
from ragsweep.errors import UserError
from ragsweep.retrieval.base import check_depth, check_texts
from ragsweep.retrieval.dense import l2_normalise
from ragsweep.secrets import looks_secret, mask_text

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Vectors of one remote model on disk: `<directory>/embeddings/<key>.sqlite`, where key
    hashes the model's identity (model, base URL, dimensions). Safe for several processes at
    once (sqlite's locks; a row is written once, `INSERT OR IGNORE`)."""

    def __init__(self, directory: str | os.PathLike[str], identity: dict[str, Any]) -> None:
        digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
        self.path = Path(directory) / "embeddings" / f"{digest[:32]}.sqlite"
        self.identity = identity

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=120)
        db.execute("CREATE TABLE IF NOT EXISTS vectors (hash TEXT PRIMARY KEY, vector BLOB)")
        db.execute("CREATE TABLE IF NOT EXISTS model (identity TEXT)")
        if db.execute("SELECT COUNT(*) FROM model").fetchone()[0] == 0:
            # what the file holds, for a person reading it (URI passwords masked)
            db.execute("INSERT INTO model VALUES (?)", (mask_text(json.dumps(self.identity)),))
        db.commit()
        return db

    def get(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors of `hashes` (those not cached are absent)."""
        if not hashes or not self.path.exists():
            return {}
        out: dict[str, np.ndarray] = {}
        with closing(self._connect()) as db:
            for start in range(0, len(hashes), 500):  # sqlite's limit on bound parameters
                part = list(hashes[start : start + 500])
                marks = ",".join("?" * len(part))
                rows = db.execute(f"SELECT hash, vector FROM vectors WHERE hash IN ({marks})", part)
                for h, blob in rows:
                    out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def put(self, vectors: dict[str, np.ndarray]) -> None:
        if not vectors:
            return
        rows = [(h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()]
        with closing(self._connect()) as db, db:
            db.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?)", rows)


class OpenAICompatibleEmbedder:
    """Texts to L2-normalised float32 rows through an OpenAI-compatible `/embeddings` endpoint
    (see the module docstring): pretrained, `fit` does nothing."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        dimensions: int | None = None,
        batch_size: int = 64,
        max_concurrency: int = 4,
        max_retries: int = 6,
        timeout: float = 60.0,
        cache_dir: str | os.PathLike[str] | None = ".ragsweep_cache",
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        retry_after_max: float = 60.0,
        *,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        if urlsplit(base_url).scheme not in ("http", "https") or not urlsplit(base_url).netloc:
            raise UserError(
                f"embedder.base_url {mask_text(base_url)!r} is not an http(s) URL; give the "
                f"server's OpenAI-compatible root, e.g. {DEFAULT_BASE_URL} or "
                "http://localhost:8000/v1"
            )
        self.base_url = base_url
        if not isinstance(model, str) or not model.strip():
            raise UserError(f"embedder.model must name the model, got {model!r}")
        self.model = model
        if api_key_env is not None:
            if not isinstance(api_key_env, str) or looks_secret(api_key_env):
                raise UserError(
                    "embedder.api_key_env names the environment variable holding the key, not "
                    "the key itself: export OPENAI_API_KEY=... and give api_key_env=OPENAI_API_KEY"
                )
            if not _ENV_NAME.fullmatch(api_key_env):
                raise UserError(
                    f"embedder.api_key_env {api_key_env!r} is not an environment variable name"
                )
            if not os.environ.get(api_key_env):
                raise UserError(
                    f"embedder.api_key_env: {api_key_env} is not set; export the key of "
                    f"{self.shown_url} in it (or embedder.api_key_env=null for a server that "
                    "needs no key)"
                )
        self.api_key_env = api_key_env
        if dimensions is not None:
            dimensions = check_depth(dimensions, "embedder.dimensions")
        self.dimensions = dimensions
        self.batch_size = check_depth(batch_size, "embedder.batch_size")
        self.max_concurrency = check_depth(max_concurrency, "embedder.max_concurrency")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise UserError(f"embedder.max_retries must be a whole number >= 0, got {max_retries}")
        self.max_retries = max_retries
        seconds = {
            "timeout": timeout,
            "backoff_base": backoff_base,
            "backoff_max": backoff_max,
            "retry_after_max": retry_after_max,
        }
        for name, value in seconds.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise UserError(f"embedder.{name} must be a number of seconds > 0, got {value!r}")
        self.timeout = float(timeout)
        self.endpoint = Endpoint(
            self.base_url,
            api_key_env=api_key_env,
            timeout=self.timeout,
            policy=RetryPolicy(max_retries, backoff_base, backoff_max, retry_after_max),
            sleep=sleep,
            rng=rng,
        )
        self.cache = (
            None
            if cache_dir is None
            else EmbeddingCache(Path(cache_dir).resolve(), self._identity())
        )
        self.requests = 0  # requests sent by this object (retries not counted)
        self._dim: int | None = dimensions
        self._lock = threading.Lock()

    # -- pickling: the lock stays behind (and the endpoint's client, which holds the key) -----

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_lock")
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"OpenAICompatibleEmbedder(model={self.model!r}, base_url={self.shown_url!r}, "
            f"api_key_env={self.api_key_env!r}, dimensions={self.dimensions})"
        )

    # -- the Embedder protocol ----------------------------------------------------------------

    def fit(self, texts: Sequence[str]) -> None:
        """Nothing to learn: the model is pretrained."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, L2-normalised rows; zero rows for blank texts."""
        texts = check_texts(texts, "texts")
        hashes = [text_hash(t) for t in texts]
        wanted = {h: t for h, t in zip(hashes, texts, strict=True) if t.strip()}
        found = self.cache.get(list(wanted)) if self.cache is not None else {}
        missing = [(h, t) for h, t in wanted.items() if h not in found]
        if missing:
            found.update(self._request_all(missing))
        if found:
            self._dim = self._check_dims(found.values())
        dim = self._dim or 0
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, h in enumerate(hashes):
            if h in found:
                out[i] = found[h]
        return l2_normalise(out)

    def fingerprint(self) -> dict[str, Any]:
        # the model's identity only: the vectors do not depend on batching, concurrency,
        # retries, the key or where they are cached (see the module docstring)
        return self._identity()

    # -- requests ----------------------------------------------------------------------------

    def _identity(self) -> dict[str, Any]:
        return {
            "embedder": "openai_compatible",
            "model": self.model,
            "base_url": self.base_url,
            "dimensions": self.dimensions,
        }

    @property
    def shown_url(self) -> str:
        return mask_text(self.base_url)

    def _check_key(self) -> None:
        if self.api_key_env is not None and self.endpoint.key() is None:
            raise UserError(
                f"{self.shown_url}: {self.api_key_env} is not set; export the server's API key "
                "in it"
            )

    def _request_all(self, missing: list[tuple[str, str]]) -> dict[str, np.ndarray]:
        """Embed `missing` (hash, text) pairs in batches, `max_concurrency` at a time; each
        finished batch goes into the cache at once (an interrupted run keeps what it paid)."""
        self._check_key()
        batches = [
            missing[i : i + self.batch_size] for i in range(0, len(missing), self.batch_size)
        ]
        got: dict[str, np.ndarray] = {}
        pool = ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="ragsweep-embed")
        try:
            futures = [pool.submit(self._request, batch) for batch in batches]
            for future in as_completed(futures):
                vectors = future.result()
                if self.cache is not None:
                    self.cache.put(vectors)
                got.update(vectors)
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return got

    def _request(self, batch: list[tuple[str, str]]) -> dict[str, np.ndarray]:
        import openai

        kwargs: dict[str, Any] = {"encoding_format": "float"}
        if self.dimensions is not None:
            kwargs["dimensions"] = self.dimensions
        with self._lock:
            self.requests += 1

        def request(client: Any) -> Any:
            return client.embeddings.create(model=self.model, input=[t for _, t in batch], **kwargs)

        try:
            response = self.endpoint.call(request, what=self.model)
        except (openai.AuthenticationError, openai.PermissionDeniedError) as err:
            raise UserError(
                f"{self.shown_url}: the server refused the API key for model {self.model!r} "
                f"(HTTP {err.status_code}: {self.endpoint.detail(err)}); put a valid key in "
                f"{self.api_key_env}"
            ) from None
        except openai.NotFoundError as err:
            raise UserError(
                f"{self.shown_url}: model {self.model!r} not found (HTTP 404: "
                f"{self.endpoint.detail(err)}); check embedder.model and that "
                "embedder.base_url ends in /v1"
            ) from None
        except openai.APIStatusError as err:
            raise UserError(
                f"{self.shown_url}: embedding with model {self.model!r} failed "
                f"({self.endpoint.reason(err)}, after up to {self.max_retries} retries)"
            ) from None
        except openai.APIConnectionError as err:  # timeouts included
            raise UserError(
                f"{self.shown_url}: cannot reach the server ({self.endpoint.scrub(clip(err))}) "
                f"after up to {self.max_retries} retries; start it or fix embedder.base_url"
            ) from None
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != len(batch) or [d.index for d in data] != list(range(len(batch))):
            raise UserError(
                f"{self.shown_url}: asked for {len(batch)} embeddings of model {self.model!r}, "
                f"got {len(data)}; is this an OpenAI-compatible /embeddings endpoint?"
            )
        out: dict[str, np.ndarray] = {}
        for (h, _), item in zip(batch, data, strict=True):
            vector = np.asarray(item.embedding, dtype=np.float32)
            if vector.ndim != 1 or not vector.size or not np.isfinite(vector).all():
                raise UserError(
                    f"{self.shown_url}: model {self.model!r} returned an embedding that is not "
                    "a finite vector"
                )
            out[h] = vector
        return out

    def _check_dims(self, vectors: Any) -> int:
        dims = {int(v.shape[0]) for v in vectors}
        if self._dim is not None:
            dims.add(self._dim)
        if len(dims) != 1:
            raise UserError(
                f"{self.shown_url}: model {self.model!r} returned vectors of "
                f"{', '.join(map(str, sorted(dims)))} dimensions"
                + (f" (asked for {self.dimensions})" if self.dimensions else "")
                + "; one model gives one dimension: check embedder.dimensions, or clear its "
                f"cache {self.cache.path if self.cache else ''}"
            )
        return dims.pop()
