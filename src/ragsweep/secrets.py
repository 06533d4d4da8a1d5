"""One place that decides what is a secret, and masks it in everything that leaves a process
(params, tags, artifacts, files, printed and logged lines); the rules, and what is not caught,
are in docs/secrets.md.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

REDACTED = "***"

_SECRET_KEY = re.compile(
    r"(api[_-]?key|token|secret|password|passwd|credential|auth|bearer|private[_-]?key)"
    r"(?![a-z]|[_-]env(?![a-z]))",
    re.I,
)
_TOKEN_CHARS = r"[A-Za-z0-9_\-]"
_SECRET_VALUE = re.compile(
    r"(?<![A-Za-z0-9_\-])("
    r"(?:sk|pk|rk)[-_][A-Za-z0-9_\-]{3,}"
    r"|gh[pousr]_[A-Za-z0-9]{8,}|github_pat_[A-Za-z0-9_]{8,}"
    r"|glpat-[A-Za-z0-9_\-]{8,}"
    r"|xox[abprs]-[A-Za-z0-9\-]{8,}"
    r"|hf_[A-Za-z0-9]{8,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_\-]{35}"
    r"|eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}"
    rf"|{_TOKEN_CHARS}{{32,}}"
    r")(?![A-Za-z0-9_\-])"
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s'\",]+")
_URI_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^/@:\s]*:)[^/@\s]+@")
#: `key=value`, `key: value` and `"key": "value"` pairs whose key looks secret
_SECRET_PAIR = re.compile(
    r"(?P<key>[\w.\-+~]*" + _SECRET_KEY.pattern + r"[\w.\-]*)"
    r"(?P<sep>['\"]?\s*[=:]\s*['\"]?)(?P<value>[^\s'\",}\]]+)",
    re.I,
)
#: the environment variables `hide_overrides` moves secret values into
ENV_PREFIX = "RAGSWEEP_SECRET_"
_HIDDEN = re.compile(r"\$\\?\{oc\.env\\?:" + ENV_PREFIX + r"\d+\\?\}")  # Hydra escapes it


def is_secret_key(key: str) -> bool:
    """A config key naming an API key, token, secret, password or credential."""
    return bool(_SECRET_KEY.search(key))


def _random_token(text: str) -> bool:
    return bool(re.search("[A-Z]", text) and re.search("[a-z]", text) and re.search("[0-9]", text))


def _mask_value_match(m: re.Match[str]) -> str:
    token = m.group(1)
    generic = len(token) >= 32 and not re.match(
        r"(sk|pk|rk)[-_]|gh[pousr]_|github_pat_|glpat-|xox|hf_|AKIA|ASIA|AIza|eyJ", token
    )
    if generic and not _random_token(token):
        return token  # a hexadecimal hash, a long lower-case name: not a secret
    return REDACTED


def looks_secret(value: str) -> bool:
    """A value shaped like an API key or token (see the module docstring)."""
    return mask_text(value) != value


def mask_text(text: str) -> str:
    """`text` with every secret-shaped value, secret-keyed pair, bearer token, URI password and
    hidden-secret interpolation replaced by `***`."""
    out = _URI_PASSWORD.sub(lambda m: f"{m.group('head')}{REDACTED}@", text)
    out = _HIDDEN.sub(REDACTED, out)
    out = _BEARER.sub(lambda m: m.group(1) + REDACTED, out)
    out = _SECRET_VALUE.sub(_mask_value_match, out)
    return _SECRET_PAIR.sub(
        lambda m: (
            m.group(0)
            if m.group("value") == REDACTED
            else f"{m.group('key')}{m.group('sep')}{REDACTED}"
        ),
        out,
    )


def mask_config(value: Any) -> Any:
    """A copy of a plain (nested dict/list) config with secret-keyed values and secret-shaped
    strings masked."""
    if isinstance(value, Mapping):
        return {
            k: REDACTED if is_secret_key(str(k)) and v is not None else mask_config(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [mask_config(v) for v in value]
    return mask_text(value) if isinstance(value, str) else value


def is_secret_override(override: str) -> bool:
    """An override whose value is secret (by key or by shape) or was hidden in the environment."""
    key, eq, value = override.partition("=")
    return bool(eq) and (is_secret_key(key) or looks_secret(value))


def mask_override(override: str) -> str:
    """A command-line override with a secret value masked (`+tracking.token=***`)."""
    key, eq, value = override.partition("=")
    if eq and is_secret_key(key):
        return f"{key}={REDACTED}"
    return mask_text(override)


def mask_overrides(overrides: Sequence[str]) -> list[str]:
    return [mask_override(o) for o in overrides]


def hide_overrides(args: Sequence[str], environ: dict[str, str] | None = None) -> list[str]:
    """`args` with each secret override's value moved into `environ` (default: this process's
    environment) as `RAGSWEEP_SECRET_n`, replaced by `${oc.env:RAGSWEEP_SECRET_n}`. Flags and
    other overrides are unchanged; a value that already is an interpolation is left alone."""
    env = os.environ if environ is None else environ
    out = []
    for arg in args:
        key, eq, value = arg.partition("=")
        plain = value.strip("'\"")
        if arg.startswith("-") or not eq or plain.startswith("${") or not plain:
            out.append(arg)
            continue
        if not is_secret_override(arg):
            out.append(arg)
            continue
        name = f"{ENV_PREFIX}{sum(k.startswith(ENV_PREFIX) for k in env)}"
        env[name] = plain
        out.append(f"{key}=${{oc.env:{name}}}")
    return out


def mask_uri(uri: str) -> str:
    """`uri` with its password and secret-keyed query values (`?token=...`) masked, and nothing
    else: unlike `mask_text`, a long mixed-case folder name in a store's path stays as it is, so
    `unmask_uri` can find the real URI again."""
    out = _URI_PASSWORD.sub(lambda m: f"{m.group('head')}{REDACTED}@", uri)
    return _SECRET_PAIR.sub(lambda m: f"{m.group('key')}{m.group('sep')}{REDACTED}", out)


def unmask_uri(masked: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The real URI behind `masked` (a `mask_uri` result, as a sweep's plan holds the tracking
    URI): `masked` itself when nothing in it was masked, else the value of an environment
    variable (default: this process's) that masks to it, the secrets `hide_overrides` moved
    there first (a command line's `tracking.uri=` beats MLFLOW_TRACKING_URI); None when no
    variable does."""
    if REDACTED not in masked:
        return masked
    env = os.environ if environ is None else environ
    names = sorted(env, key=lambda name: not name.startswith(ENV_PREFIX))
    return next((env[n] for n in names if mask_uri(env[n]) == masked), None)


class MaskFilter(logging.Filter):
    """A logging filter that masks secrets in every record (Hydra's launch lines, job logs):
    named in conf/hydra/*_logging/ragsweep.yaml."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_text(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True
