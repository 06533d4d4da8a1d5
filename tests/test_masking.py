"""ragsweep.secrets: what counts as a secret, and masking it in text, configs and overrides."""

from __future__ import annotations

import logging

import pytest
from omegaconf import OmegaConf

from ragsweep.secrets import (
    REDACTED,
    MaskFilter,
    hide_overrides,
    is_secret_key,
    mask_config,
    mask_override,
    mask_text,
    mask_uri,
    unmask_uri,
)

SHAPED = [
    "sk-abc123",
    "sk-bearer555",
    "sk-ant-api03-Zx9",
    "pk_live_51Hx",
    "ghp_abcdEFGH1234",
    "github_pat_11ABCDEFG0123",
    "glpat-abcdefgh12",
    "xoxb-1234-5678-abcd",
    "hf_AbCdEfGhIjKl",
    "AKIAIOSFODNN7EXAMPLE",
    "AIza" + "B" * 35,
    "eyJhbGciOi.eyJzdWIiOi.SflKxwRJSM",
    "Zq8" * 11,  # 33 random-looking characters
]
INNOCENT = [
    "chunker.size=128",
    "a chunk of 128 tokens: 5",
    "author: Jane",
    "640ae0c3b1f2e4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9",  # a content hash
    "sqlite:////tmp/x/mlruns/mlflow.db",
    "reranker=minilm embedder.model=sentence-transformers/all-MiniLM-L6-v2",
    "risk-free excess",
    "ragsweep.config_hash",
]


@pytest.mark.parametrize("value", SHAPED)
def test_api_key_shaped_values_are_masked_under_any_key(value):
    assert mask_text(f"+x.whatever={value}") == f"+x.whatever={REDACTED}"
    assert mask_text(f"the key {value} leaked") == f"the key {REDACTED} leaked"
    assert mask_config({"x": {"n": value}}) == {"x": {"n": REDACTED}}


@pytest.mark.parametrize("text", INNOCENT)
def test_ordinary_values_are_left_alone(text):
    assert mask_text(text) == text
    assert mask_override(text) == text


@pytest.mark.parametrize(
    "key", ["tracking.token", "x.api_key", "apiKey", "db.password", "auth", "x.bearer"]
)
def test_secret_looking_keys_mask_any_value(key):
    assert is_secret_key(key)
    assert mask_override(f"+{key}=hunter2") == f"+{key}={REDACTED}"
    assert mask_text(f"{key}: hunter2") == f"{key}: {REDACTED}"
    assert mask_text(f'"{key}": "hunter2"') == f'"{key}": "{REDACTED}"'


@pytest.mark.parametrize("key", ["tokens", "chunker.max_tokens_total", "author", "size"])
def test_words_that_only_contain_a_secret_word_are_not_secret_keys(key):
    assert not is_secret_key(key)


@pytest.mark.parametrize("key", ["embedder.api_key_env", "x.token_env", "x.API-KEY-ENV"])
def test_a_key_naming_the_variable_that_holds_a_secret_is_shown(key):
    assert not is_secret_key(key)
    assert mask_override(f"{key}=OPENAI_API_KEY") == f"{key}=OPENAI_API_KEY"
    assert mask_config({"api_key_env": "OPENAI_API_KEY"}) == {"api_key_env": "OPENAI_API_KEY"}
    # the key itself, given there by mistake, is still masked by its shape
    assert mask_override(f"{key}=sk-abc123") == f"{key}={REDACTED}"
    assert is_secret_key("x.api_key_environment") and is_secret_key("x.api_key")


def test_uri_passwords_and_bearer_headers_are_masked():
    assert mask_text("postgresql+psycopg2://ann:pw0rd@db:5432/m") == (
        f"postgresql+psycopg2://ann:{REDACTED}@db:5432/m"
    )
    assert mask_text("Authorization: Bearer abc.def") == f"Authorization: Bearer {REDACTED}"


def test_hidden_overrides_move_secret_values_into_the_environment_and_resolve_back():
    env: dict[str, str] = {}
    args = ["-m", "+tracking.token=sk-abc123", "+x.bearer=sk-bearer555", "fusion.k=10,60"]
    hidden = hide_overrides(args, env)
    assert hidden[0] == "-m" and hidden[-1] == "fusion.k=10,60"
    assert sorted(env.values()) == ["sk-abc123", "sk-bearer555"]
    assert not any("sk-" in a for a in hidden)
    # what Hydra is handed resolves to the real values, and masks to *** wherever it is written
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        cfg = OmegaConf.from_dotlist([a.lstrip("+") for a in hidden[1:3]])
        assert OmegaConf.to_container(cfg, resolve=True) == {
            "tracking": {"token": "sk-abc123"},
            "x": {"bearer": "sk-bearer555"},
        }
    escaped = hidden[1].replace("{", r"\{").replace("}", r"\}").replace(":", r"\:", 1)
    assert mask_text(escaped) == f"+tracking.token={REDACTED}"  # as Hydra escapes it in logs


def test_a_masked_uri_is_read_back_from_the_environment_a_command_line_first():
    masked = mask_uri("http://ann:pw@host:5000")
    assert masked == f"http://ann:{REDACTED}@host:5000"
    env = {"MLFLOW_TRACKING_URI": "http://ann:env-pw@host:5000", "HOME": "/root"}
    assert unmask_uri(masked, env) == "http://ann:env-pw@host:5000"
    # `tracking.uri=` on the command line (hidden in RAGSWEEP_SECRET_n) beats the variable
    env["RAGSWEEP_SECRET_0"] = "http://ann:line-pw@host:5000"
    assert unmask_uri(masked, env) == "http://ann:line-pw@host:5000"
    assert unmask_uri(f"http://bob:{REDACTED}@host:5000", env) is None  # nowhere to be found
    # a store's path is kept as it is, a long mixed-case folder name too (mask_text hides it)
    db = "sqlite:////home/ann/My_Project-Experiments_2024_Final/mlruns/mlflow.db"
    assert mask_uri(db) == db != mask_text(db)
    assert unmask_uri(db, {}) == db


def test_the_log_filter_masks_formatted_records():
    record = logging.LogRecord(
        "hydra", logging.INFO, __file__, 1, "\t#%d : %s", (0, "k=sk-x99"), None
    )
    assert MaskFilter().filter(record) is True
    assert record.getMessage() == f"\t#0 : k={REDACTED}"
