"""Embeddings from any OpenAI-compatible endpoint: `embedder=openai_compatible`.

`POST {base_url}/embeddings` (OpenAI, Azure-style gateways, vLLM, Text Embeddings Inference,
Ollama, LiteLLM ...) through the `openai` client, `encoding_format="float"` (every compatible
server understands it; base64 is not universal), `dimensions` sent only when set.

- **Key.** Read only from the environment variable named by `api_key_env` (default
  `OPENAI_API_KEY`), when the client is first made; `api_key_env: null` is a server that needs
  no key (a placeholder is sent). The key is never an attribute of the embedder, so it cannot
  reach a pickled index in the stage cache; the client holding it is not pickled; it is taken
  out of every error message.
- **Cache.** One sqlite file per (model, base URL, dimensions) under `<cache_dir>/embeddings/`,
  one row per text (sha256 of the text -> the float32 vector as returned). Every text is looked
  up first and only the missing ones are sent, so configurations and sweeps that share the
  embedder pay for each text once, and a second run sends no request. Batch size, concurrency,
  retries and timeout decide nothing about the vectors (a text's vector is the one first
  received) and stay out of the fingerprint. `cache_dir: null` keeps nothing.
- **Requests.** Missing texts go in batches of `batch_size`, at most `max_concurrency` requests
  in flight (a thread pool). The client retries 408, 409, 429, 5xx and dropped connections up
  to `max_retries` times with exponential backoff (0.5 s doubling to 8 s, less up to 25 %
  jitter), honouring the server's `Retry-After`/`retry-after-ms`; `timeout` is per request.
- **Vectors.** Rows are L2-normalised to float32 here (servers differ in whether they
  normalise). An empty or blank text gets the zero vector without a request (most servers
  refuse empty input), so a blank query retrieves nothing, as with LSA.
- **Errors.** A refused key, an unknown model, a server that cannot be reached or answers with
  vectors of the wrong shape is a one-line `UserError` naming the base URL, the model and the
  fix.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from ragsweep.errors import UserError
from ragsweep.retrieval.base import check_depth, check_texts
from ragsweep.retrieval.dense import l2_normalise
from ragsweep.secrets import REDACTED, looks_secret, mask_text

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: sent as the key to a server that needs none (`api_key_env: null`): the client wants some key
PLACEHOLDER_KEY = "not-needed"
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
                    f"{self._shown_url} in it (or embedder.api_key_env=null for a server that "
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
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise UserError(f"embedder.timeout must be a number of seconds > 0, got {timeout!r}")
        self.timeout = float(timeout)
        self.cache = (
            None
            if cache_dir is None
            else EmbeddingCache(Path(cache_dir).resolve(), self._identity())
        )
        self.requests = 0  # requests sent by this object (retries not counted)
        self._dim: int | None = dimensions
        self._client: Any = None
        self._lock = threading.Lock()

    # -- pickling: the client (which holds the key) and the lock stay behind ------------------

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_client"] = None
        state.pop("_lock")
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"OpenAICompatibleEmbedder(model={self.model!r}, base_url={self._shown_url!r}, "
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
    def _shown_url(self) -> str:
        return mask_text(self.base_url)

    def _key(self) -> str:
        if self.api_key_env is None:
            return PLACEHOLDER_KEY
        key = os.environ.get(self.api_key_env)
        if not key:
            raise UserError(
                f"{self._shown_url}: {self.api_key_env} is not set; export the server's API key "
                "in it"
            )
        return key

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    api_key=self._key(),
                    base_url=self.base_url,
                    max_retries=self.max_retries,
                    timeout=self.timeout,
                )
            return self._client

    def _request_all(self, missing: list[tuple[str, str]]) -> dict[str, np.ndarray]:
        """Embed `missing` (hash, text) pairs in batches, `max_concurrency` at a time; each
        finished batch goes into the cache at once (an interrupted run keeps what it paid)."""
        client = self._get_client()
        batches = [
            missing[i : i + self.batch_size] for i in range(0, len(missing), self.batch_size)
        ]
        got: dict[str, np.ndarray] = {}
        pool = ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="ragsweep-embed")
        try:
            futures = [pool.submit(self._request, client, batch) for batch in batches]
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

    def _request(self, client: Any, batch: list[tuple[str, str]]) -> dict[str, np.ndarray]:
        import openai

        kwargs: dict[str, Any] = {"encoding_format": "float"}
        if self.dimensions is not None:
            kwargs["dimensions"] = self.dimensions
        with self._lock:
            self.requests += 1
        try:
            response = client.embeddings.create(
                model=self.model, input=[t for _, t in batch], **kwargs
            )
        except (openai.AuthenticationError, openai.PermissionDeniedError) as err:
            raise UserError(
                f"{self._shown_url}: the server refused the API key for model {self.model!r} "
                f"(HTTP {err.status_code}: {self._detail(err)}); put a valid key in "
                f"{self.api_key_env}"
            ) from None
        except openai.NotFoundError as err:
            raise UserError(
                f"{self._shown_url}: model {self.model!r} not found (HTTP 404: "
                f"{self._detail(err)}); check embedder.model and that embedder.base_url ends "
                "in /v1"
            ) from None
        except openai.APIStatusError as err:
            raise UserError(
                f"{self._shown_url}: embedding with model {self.model!r} failed (HTTP "
                f"{err.status_code}: {self._detail(err)}, after up to {self.max_retries} "
                "retries)"
            ) from None
        except openai.APIConnectionError as err:  # timeouts included
            raise UserError(
                f"{self._shown_url}: cannot reach the server ({self._scrub(err)}) after up to "
                f"{self.max_retries} retries; start it or fix embedder.base_url"
            ) from None
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != len(batch) or [d.index for d in data] != list(range(len(batch))):
            raise UserError(
                f"{self._shown_url}: asked for {len(batch)} embeddings of model {self.model!r}, "
                f"got {len(data)}; is this an OpenAI-compatible /embeddings endpoint?"
            )
        out: dict[str, np.ndarray] = {}
        for (h, _), item in zip(batch, data, strict=True):
            vector = np.asarray(item.embedding, dtype=np.float32)
            if vector.ndim != 1 or not vector.size or not np.isfinite(vector).all():
                raise UserError(
                    f"{self._shown_url}: model {self.model!r} returned an embedding that is not "
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
                f"{self._shown_url}: model {self.model!r} returned vectors of "
                f"{', '.join(map(str, sorted(dims)))} dimensions"
                + (f" (asked for {self.dimensions})" if self.dimensions else "")
                + "; one model gives one dimension: check embedder.dimensions, or clear its "
                f"cache {self.cache.path if self.cache else ''}"
            )
        return dims.pop()

    def _detail(self, err: Any) -> str:
        body = getattr(err, "body", None)
        message: object = None
        if isinstance(body, dict):
            inner = body.get("error", body)
            message = inner.get("message") if isinstance(inner, dict) else inner
        return self._scrub(message or getattr(err, "message", err))

    def _scrub(self, text: object) -> str:
        """One line, with the key and anything secret-shaped masked."""
        out = " ".join(str(text).split())[:300]
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            out = out.replace(key, REDACTED)
        return mask_text(out)
