"""A sweep on a Ray cluster (`hydra/launcher=ray`): Ray started once in the launching process
(`start`), and every node checked before anything runs (`check_workers`: the same ragsweep, the
launch folder, the dataset, the cache, the sweep folder and the tracking store, each reached
through a filesystem every node mounts), refused in one line otherwise. docs/cluster.md says
what each check guards and how the job's `runtime_env` carries the secrets to the workers.
"""

from __future__ import annotations

import os
import socket
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragsweep.errors import UserError, first_line
from ragsweep.experiment.tracking.store import Store, local_db, resolve_store
from ragsweep.secrets import ENV_PREFIX, mask_text

if TYPE_CHECKING:
    from omegaconf import DictConfig

RAY_LAUNCHER = "hydra_plugins.hydra_ray_launcher.ray_launcher.RayLauncher"
#: how long every node has to answer the check (a new worker process imports ragsweep)
CHECK_SECONDS = 120.0
#: settings only a new local Ray instance takes (joining a running cluster refuses them):
#: the object store hydra-ray-launcher gives a local instance, and no dashboard
LOCAL_DEFAULTS: dict[str, Any] = {"object_store_memory": 78_643_200, "include_dashboard": False}
#: environment variables every task needs from the launching process (their values are never
#: logged: they travel in the job's runtime_env)
FORWARDED_PREFIXES = (ENV_PREFIX, "MLFLOW_TRACKING_")
TOKEN_PREFIX = ".ragsweep-reach-"
#: the end of a worker's problem: what to do
REACH = (
    "; every Ray node must run the same ragsweep and reach the launch folder, the dataset, the "
    "cache dir, the sweep folder and the tracking store (docs/cluster.md)"
)
#: default ports of tracking URIs whose workers talk to a server directly
_PORTS = {"http": 80, "https": 443, "postgresql": 5432, "mysql": 3306, "mssql": 1433}


@dataclass(frozen=True)
class Need:
    """A folder every worker must reach: what it is (for the message), its absolute path (None:
    the sample inside the worker's own ragsweep), the launcher's token file in it and what that
    holds (None: not checked, e.g. a dataset folder the launcher may not write), a file the
    folder must hold, and whether the worker writes there."""

    what: str
    path: str | None
    token: str | None = None
    stamp: str | None = None
    holds: str | None = None
    write: bool = False


def ray_launcher(fixed: Sequence[str]) -> DictConfig | None:
    """The composed `hydra.launcher` of a sweep's fixed overrides when it is Hydra's Ray
    launcher, else None. Only an override chooses a launcher (`hydra/launcher=ray`): without
    one, nothing is composed (the default is the joblib launcher)."""
    # Hydra and OmegaConf are imported when a sweep asks: `ragsweep ui` imports this package
    from ragsweep.config import compose

    if not any(o.lstrip("+~").startswith("hydra/launcher=") for o in fixed):
        return None
    launcher = compose(list(fixed), hydra=True).hydra.launcher
    return launcher if launcher.get("_target_") == RAY_LAUNCHER else None


def _import_ray() -> Any:
    try:
        import ray
        from hydra_plugins.hydra_ray_launcher import ray_launcher  # noqa: F401
    except ImportError as err:
        raise UserError(
            f"hydra/launcher=ray needs the [ray] extra ({err.name or err} is not importable): "
            "pip install 'ragsweep[ray]'"
        ) from None
    return ray


def forwarded_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of `environ` (default: this process's) every task needs."""
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items() if k.startswith(FORWARDED_PREFIXES)}


def start(init: Mapping[str, Any]) -> None:
    """`ray.init(**init)` unless Ray runs in this process already (see the module docstring)."""
    ray = _import_ray()
    if ray.is_initialized():
        return
    kwargs = dict(init)
    env = forwarded_env()
    if env:
        runtime_env = dict(kwargs.get("runtime_env") or {})
        runtime_env["env_vars"] = {**env, **(runtime_env.get("env_vars") or {})}
        kwargs["runtime_env"] = runtime_env
    local = {k: v for k, v in LOCAL_DEFAULTS.items() if k not in kwargs}
    address = kwargs.get("address") or os.environ.get("RAY_ADDRESS")
    where = f"the Ray cluster at {address}" if address else "a local Ray instance"
    try:
        try:
            ray.init(**kwargs, **local)
        except ValueError as err:  # joining a running cluster: local-only settings refused
            if not local or "existing cluster" not in str(err):
                raise
            ray.init(**kwargs)
    except ValueError as err:
        raise UserError(f"hydra.launcher.ray.init: {first_line(err)} ({where})") from None
    except (ConnectionError, RuntimeError, TimeoutError) as err:
        hint = ""
        if address and os.environ.get("RAY_AUTH_MODE") != "token":
            hint = " (a cluster with Ray's token authentication, Ray's default, also needs "
            hint += "RAY_AUTH_MODE=token and its token here: docs/cluster.md)"
        raise UserError(f"cannot reach {where}: {first_line(err)}{hint}") from None


def _resolved(path: str | os.PathLike[str]) -> str:
    return str(Path(path).expanduser().resolve())


def _store_needs(store: Store) -> list[Need]:
    """The folders a local sqlite store keeps on disk (its database, its artifacts)."""
    out = []
    db = local_db(store.uri)
    if db is not None:
        out.append(Need("tracking store's folder", _resolved(db.parent), write=True))
    root = store.artifact_root or ""
    if root.startswith("file:"):
        path = urllib.parse.unquote(urllib.parse.urlparse(root).path)
        out.append(Need("tracking store's artifact folder", _resolved(path), write=True))
    return out


def needs(cfg: DictConfig, sweep_dir: str, store: Store) -> list[Need]:
    """Everything a worker of this sweep must reach (the module docstring), tokens unset."""
    from omegaconf import OmegaConf

    data = OmegaConf.select(cfg, "data.path", default=None)
    cache = OmegaConf.select(cfg, "cache.dir", default=None)
    out = [
        Need("folder the sweep is launched in", _resolved(Path.cwd())),
        Need("dataset folder", None if data is None else _resolved(data), holds="dataset.json"),
    ]
    if cache is not None:
        out.append(Need("cache dir (cache.dir)", _resolved(cache), write=True))
    out.append(Need("sweep folder", _resolved(sweep_dir), write=True))
    return out + _store_needs(store)


class _Prepared:
    """The folders made and the tokens left for a check, taken back by `undo`."""

    def __init__(self) -> None:
        self.made: list[Path] = []
        self.tokens: list[Path] = []

    def make(self, path: Path) -> None:
        missing = [p for p in (path, *path.parents) if not p.exists()]
        path.mkdir(parents=True, exist_ok=True)
        self.made += sorted(missing, key=lambda p: len(p.parts))

    def leave_token(self, need: Need) -> Need:
        assert need.path is not None
        name, stamp = TOKEN_PREFIX + uuid.uuid4().hex[:16], uuid.uuid4().hex
        token = Path(need.path) / name
        try:
            token.write_text(stamp)
        except OSError as err:
            raise UserError(f"cannot write into the {need.what} {need.path}: {err}") from None
        self.tokens.append(token)
        return Need(need.what, need.path, name, stamp, need.holds, need.write)

    def remove_tokens(self) -> None:
        for token in self.tokens:
            token.unlink(missing_ok=True)
        self.tokens.clear()

    def remove_folders(self) -> None:
        """The folders this check made, deepest first, if nothing else was put there."""
        for path in reversed(self.made):
            try:
                path.rmdir()
            except OSError:
                continue
        self.made.clear()


def prepare(wanted: Sequence[Need], prepared: _Prepared) -> list[Need]:
    """Make the folders the sweep writes (as the launch would) and leave a token in each folder
    the launcher's own disk holds; the dataset folder is only read."""
    out = []
    for need in wanted:
        if need.path is None or need.holds is not None:
            out.append(need)
            continue
        if need.write:
            prepared.make(Path(need.path))
        out.append(prepared.leave_token(need) if Path(need.path).is_dir() else need)
    return out


def _folder_problem(need: Need) -> str | None:
    """What is wrong with `need` as seen from this process, or None."""
    if need.path is None:  # the sample inside this worker's own ragsweep
        from ragsweep.data import sample_path

        path = sample_path()
    else:
        path = Path(need.path)
    if not path.is_dir():
        return f"cannot see the {need.what} {path}"
    if need.holds is not None and not (path / need.holds).is_file():
        return f"sees the {need.what} {path} without its {need.holds}"
    if need.token is not None:
        try:
            seen = (path / need.token).read_text()
        except OSError:
            seen = None
        if seen != need.stamp:
            return (
                f"sees a {need.what} {path} that is not the launcher's (a folder of that name "
                "on its own disk, not one shared with the launcher)"
            )
    if need.write:
        try:
            with tempfile.NamedTemporaryFile(dir=path, prefix=TOKEN_PREFIX):
                pass
        except OSError as err:
            return f"cannot write into the {need.what} {path}: {err.strerror or err}"
    return None


def _server_problem(uri: str) -> str | None:
    """Whether a tracking server answers: an MLflow server's /health, else a TCP connection to
    the database server the URI names (None when the URI names no host: nothing to ask)."""
    parsed = urllib.parse.urlparse(uri)
    scheme = parsed.scheme.split("+", 1)[0]
    if not parsed.hostname or scheme not in _PORTS:
        return None
    shown = mask_text(uri)
    if scheme in ("http", "https"):
        url = uri.rstrip("/") + "/health"
        try:
            with urllib.request.urlopen(url, timeout=10):  # noqa: S310 (the configured store)
                return None
        except urllib.error.HTTPError:
            return None  # it answers (a server behind a login says 401 to /health)
        except (OSError, ValueError) as err:
            reason = getattr(err, "reason", None) or err
            return f"cannot reach the tracking server {shown}: {reason}"
    try:
        port = parsed.port or _PORTS[scheme]
        socket.create_connection((parsed.hostname, port), timeout=10).close()
    except (OSError, ValueError) as err:
        return f"cannot reach the tracking store's server {shown}: {err}"
    return None


def reach(wanted: Sequence[Mapping[str, Any]], store_uri: str, code: str) -> dict[str, Any]:
    """In a Ray worker: everything it cannot reach of `wanted` (`Need`s as dicts), the store
    and the launcher's code `code`, as {"node": host, "problems": [...]}."""
    from ragsweep.provenance import code_version

    problems = []
    mine = code_version()
    if mine != code:
        problems.append(f"runs ragsweep {mine}, the launcher {code}: install the same code")
    for need in wanted:
        problem = _folder_problem(Need(**need))
        if problem is not None:
            problems.append(problem)
    if local_db(store_uri) is None:
        problem = _server_problem(store_uri)
        if problem is not None:
            problems.append(problem)
    return {"node": socket.gethostname(), "problems": problems}


def _nodes(ray: Any) -> list[dict[str, Any]]:
    return [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]


def ask_every_node(
    wanted: Sequence[Need], store_uri: str, remote: Mapping[str, Any], timeout: float
) -> list[str]:
    """`reach` on every alive Ray node with CPUs (in the tasks' runtime_env, taking no CPU);
    the problems found, each naming its node."""
    ray = _import_ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from ragsweep.provenance import code_version

    nodes = _nodes(ray)
    if not nodes:
        return ["the Ray cluster has no node with CPUs to run a configuration on"]
    asks = float(1 if remote.get("num_cpus") is None else remote["num_cpus"])  # Ray's default
    if not any(n["Resources"]["CPU"] >= asks for n in nodes):
        most = max(n["Resources"]["CPU"] for n in nodes)
        return [
            f"one configuration asks {asks:g} CPUs (hydra.launcher.ray.remote.num_cpus), no Ray "
            f"node has more than {most:g}"
        ]
    options: dict[str, Any] = {"num_cpus": 0, "max_retries": 0}
    if remote.get("runtime_env"):
        options["runtime_env"] = remote["runtime_env"]
    task = ray.remote(reach)
    payload = [asdict(n) for n in wanted]
    refs = {}
    for node in nodes:
        strategy = NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False)
        ref = task.options(scheduling_strategy=strategy, **options).remote(
            payload, store_uri, code_version()
        )
        refs[ref] = f"the Ray worker on node {node.get('NodeManagerAddress') or node['NodeID']}"
    ready, late = ray.wait(list(refs), num_returns=len(refs), timeout=timeout)
    problems = []
    for ref in ready:
        try:
            answer = ray.get(ref)
        except Exception as err:  # the task could not run there (ragsweep not installed...)
            cause = getattr(err, "cause", None) or err
            problems.append(f"{refs[ref]} cannot run ragsweep: {first_line(cause)}{REACH}")
            continue
        who = f"{refs[ref]} (host {answer['node']})"
        problems += [f"{who} {problem}{REACH}" for problem in answer["problems"]]
    for ref in late:
        ray.cancel(ref, force=True)
        problems.append(f"{refs[ref]} did not answer the launch check within {timeout:g} s")
    return problems


def check_workers(fixed: Sequence[str], cfg: DictConfig, sweep_dir: str) -> None:
    """On the Ray launcher: start Ray and refuse the sweep (one-line `UserError`) unless every
    node reaches what its configurations need (the module docstring). Any other launcher:
    nothing."""
    from omegaconf import OmegaConf

    launcher = ray_launcher(fixed)
    if launcher is None:
        return
    ray = _import_ray()
    ray_cfg = OmegaConf.to_container(launcher.ray, resolve=True)
    assert isinstance(ray_cfg, dict)
    store = resolve_store(OmegaConf.select(cfg, "tracking.uri", default=None))
    prepared = _Prepared()
    try:
        wanted = prepare(needs(cfg, sweep_dir, store), prepared)
        start(ray_cfg.get("init") or {})
        problems = ask_every_node(wanted, store.uri, ray_cfg.get("remote") or {}, CHECK_SECONDS)
    except BaseException:
        prepared.remove_tokens()
        prepared.remove_folders()
        raise
    prepared.remove_tokens()
    if problems:
        prepared.remove_folders()
        ray.shutdown()
        more = f" ({len(problems) - 1} more problem(s) after this one)" if len(problems) > 1 else ""
        raise UserError(f"{problems[0]}{more}")
