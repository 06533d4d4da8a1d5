"""The house as the docs draw it is the house `lint-imports` enforces.

The layer contract in pyproject.toml (`[tool.importlinter]`) is the one source: the README's house
section and docs/architecture.md must list its layers in its order and its foundation modules,
every package under src/ragsweep must be one of them, and every module a layer's row in
docs/architecture.md names must exist in that layer (at any depth: `tracking`'s `store`).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "ragsweep"
#: packages under src/ragsweep that hold data, not code of a layer
DATA_PACKAGES = {"conf"}


def contract() -> tuple[list[str], list[str]]:
    """(layers top to bottom, foundation modules), short names, from pyproject.toml."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"
    ]
    layers = next(c for c in contracts if c["type"] == "layers")["layers"]
    foundation = next(c for c in contracts if c["name"] == "the foundation imports no layer")
    short = [name.removeprefix("ragsweep.") for name in layers]
    return short, [name.removeprefix("ragsweep.") for name in foundation["source_modules"]]


def test_every_package_is_a_layer_and_every_module_is_foundation():
    layers, foundation = contract()
    packages = {
        p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()
    } - DATA_PACKAGES
    modules = {p.stem for p in SRC.glob("*.py")} - {"__init__", "__main__"}
    assert sorted(packages) == sorted(layers)
    assert sorted(modules) == sorted(foundation)


def test_the_readme_house_lists_the_contracts_layers_in_order():
    layers, foundation = contract()
    readme = (ROOT / "README.md").read_text()
    house = readme.split("## The house", 1)[1].split("\n## ", 1)[0]
    drawn = re.findall(r"^  ([a-z_]+)/ ", house, flags=re.M)
    assert drawn == layers
    line = next(ln for ln in house.splitlines() if "the foundation" in ln)
    assert sorted(re.findall(r"[a-z_]+", line.split("the foundation")[0])) == sorted(foundation)
    assert f"({' -> '.join(layers)})" in " ".join(house.split())


def test_the_architecture_page_lists_the_layers_in_order_and_names_modules_that_exist():
    layers, foundation = contract()
    page = (ROOT / "docs" / "architecture.md").read_text()
    rows = re.findall(r"^\| `([a-z_]+)` \| (.*) \| .* \|$", page, flags=re.M)
    assert [name for name, _ in rows] == layers
    for layer, holds in rows:
        folder = SRC / layer
        defined = {
            m.group(1)
            for py in folder.rglob("*.py")
            for m in re.finditer(
                r"^(?:def|class) ([A-Za-z_]+)|^([A-Za-z_]+) ?[:=]", py.read_text(), re.M
            )
            if m.group(1)
        }
        for name in re.findall(r"`([a-z_]+)`", holds):
            exists = any(folder.rglob(f"{name}.py")) or any(folder.rglob(f"{name}/__init__.py"))
            assert exists or name in defined or name == "ragsweep", (
                f"docs/architecture.md names `{name}` in the {layer} row: no such module there"
            )
    said = page.split("The foundation, used by every layer", 1)[1].split("\n## ", 1)[0]
    assert set(foundation) <= set(re.findall(r"`([a-z_]+)` \(", said))
