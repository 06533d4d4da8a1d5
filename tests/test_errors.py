"""`ragsweep.errors`: the one-line forms every layer raises."""

from __future__ import annotations

import pytest
import yaml

from ragsweep.errors import DatasetError, first_line, not_yaml


def _yaml_error(text: str) -> yaml.YAMLError:
    with pytest.raises(yaml.YAMLError) as caught:
        yaml.safe_load(text)
    return caught.value


def test_a_yaml_error_names_the_file_the_line_the_problem_and_the_fix():
    err = not_yaml("rules.yaml", _yaml_error("a: 1\nb: [2\n"), "fix the rules")
    assert isinstance(err, DatasetError) and err.line == 3
    assert str(err) == (
        "rules.yaml:3: not valid YAML (expected ',' or ']', but got '<stream end>'); fix the rules"
    )


def test_yaml_inside_another_file_counts_lines_from_where_it_starts():
    err = not_yaml("doc.md", _yaml_error("title: x\nkey: : bad\n"), "fix it", starts_at=2)
    assert str(err).startswith("doc.md:3: not valid YAML (")


def test_without_a_path_the_file_pyyaml_read_is_named(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text("x: 1\ny: [\n")
    with pytest.raises(yaml.YAMLError) as caught, path.open() as f:
        yaml.safe_load(f)
    err = not_yaml(None, caught.value, "fix it")
    assert str(err).startswith(f"{path}:3: not valid YAML (") and str(err).endswith("; fix it")
    assert first_line(err) == str(err)
