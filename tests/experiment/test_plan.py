"""Planning a sweep from a sweep file written the standard Hydra way (`hydra.sweeper.params`):
it plans exactly as the same sweep written as a `sweep:` block, and a file that mixes the two
forms or says something Hydra's basic sweeper would run differently is refused in one line
naming the file and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from ragsweep.errors import UserError
from ragsweep.experiment.factor import expand
from ragsweep.experiment.plan import draft
from toy import TOY

REPO = Path(__file__).parents[2]
HEAD = "# @package _global_\n"


def hydra_form(values: str, key: str = "fusion.k", head: str = HEAD) -> str:
    return f"{head}hydra:\n  sweeper:\n    params:\n      {key}: {values}\n"


def in_sweeps(folder: Path, name: str, text: str) -> None:
    (folder / "sweeps").mkdir(exist_ok=True)
    (folder / "sweeps" / f"{name}.yaml").write_text(text)


def hydra_copy(name: str) -> str:
    """The packaged sweep file `name` rewritten the Hydra way: its values as the sweeper's
    params, its baseline as the config's value of the factor."""
    block = OmegaConf.load(REPO / "sweeps" / f"{name}.yaml").sweep
    copy = OmegaConf.create({})
    OmegaConf.update(copy, str(block.factor), block.baseline)
    params = {str(block.factor): ",".join(str(v) for v in block["values"])}
    OmegaConf.update(copy, "hydra.sweeper.params", params, merge=False)
    return HEAD + OmegaConf.to_yaml(copy)


@pytest.mark.slow
def test_a_hydra_form_copy_of_chunk_size_plans_like_the_original(workdir):
    in_sweeps(workdir, "chunk_size_hydra", hydra_copy("chunk_size"))
    original = draft(["-m", *TOY, "sweep=chunk_size"])
    copy = draft(["-m", *TOY, "sweep=chunk_size_hydra"])
    assert (copy.name, original.name) == ("chunk_size_hydra", "chunk_size")
    assert (copy.factor, copy.values, copy.baseline) == (
        "chunker.size",
        ["64", "128", "256", "512"],
        "128",
    )
    assert (copy.factor, copy.values, copy.baseline) == (
        original.factor,
        original.values,
        original.baseline,
    )
    assert copy.config_hashes == original.config_hashes
    assert copy.pins == original.pins
    # the same configurations, the `sweep:` block (which decides nothing) aside
    for value, cfg in original.cfgs.items():
        plain = OmegaConf.to_container(cfg, resolve=True)
        plain.pop("sweep")
        assert OmegaConf.to_container(copy.cfgs[value], resolve=True) == plain, value
    assert {k: v for k, v in copy.sweep_key.items() if k not in ("name", "fixed")} == {
        k: v for k, v in original.sweep_key.items() if k not in ("name", "fixed")
    }


def test_command_line_values_replace_the_params_and_the_configured_value_is_the_baseline(workdir):
    in_sweeps(workdir, "mine", hydra_form("10,30") + "fusion:\n  k: 30\n")
    assert expand(["-m", *TOY, "sweep=mine", "fusion.k=5,10"])[:4] == (
        "mine",
        "fusion.k",
        ["30", "5", "10"],
        "30",
    )


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            hydra_form("10,30") + "sweep:\n  name: mine\n  factor: fusion.k\n"
            "  values: [10, 30]\n  baseline: 60\n",
            "sweep file mine (sweeps/mine.yaml) holds both a `sweep:` block and "
            "hydra.sweeper.params: keep one form",
        ),
        (
            hydra_form("[10, 30]"),
            "sweep file mine (sweeps/mine.yaml): hydra.sweeper.params.fusion.k is a YAML list",
        ),
        (
            hydra_form("10,30") + "      chunker.size: 64,128\n",
            "a sweep changes one thing, but sweep file mine (sweeps/mine.yaml) varies 2 keys in "
            "hydra.sweeper.params (fusion.k, chunker.size)",
        ),
        (
            hydra_form("10"),
            "sweep file mine (sweeps/mine.yaml): hydra.sweeper.params.fusion.k has one value",
        ),
        (
            hydra_form("1,2", key="+retriever.mine"),
            "sweep file mine (sweeps/mine.yaml): hydra.sweeper.params sweeps +retriever.mine, "
            "a key the config does not hold; set its default in the file (retriever.mine: ...) "
            "and sweep retriever.mine",
        ),
        (
            hydra_form("10,30", head=""),
            "sweep file mine (sweeps/mine.yaml) lacks its first line `# @package _global_`",
        ),
    ],
    ids=["both forms", "yaml list", "two keys", "one value", "added key", "no header"],
)
def test_a_hydra_form_file_hydra_would_read_otherwise_is_refused(workdir, text, says):
    in_sweeps(workdir, "mine", text)
    with pytest.raises(UserError) as refused:
        expand(["-m", *TOY, "sweep=mine"])
    (line,) = str(refused.value).splitlines()
    assert line.startswith(says), line
