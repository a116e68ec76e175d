"""docs/eval.md stays true: its YAML examples parse with the real models, and every CLI
command and metric of the report is documented."""

from __future__ import annotations

import re
from pathlib import Path

import typer
import yaml

from vitrina.eval.commands import eval_app
from vitrina.eval.experiment import parse_config, parse_matrix
from vitrina.eval.report_terminal import METRICS
from vitrina.eval.suite import Suite

DOC = (Path(__file__).resolve().parents[2] / "docs" / "eval.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```yaml\n(.*?)```", DOC, flags=re.S)


def test_yaml_examples_parse() -> None:
    suite, config, matrix = BLOCKS
    Suite.model_validate(yaml.safe_load(suite))
    assert parse_config(yaml.safe_load(config)).virtual_topics[0].topic.id == "loyalty"
    _, configs = parse_matrix(yaml.safe_load(matrix))
    assert [c.name for c in configs] == ["rules", "all-checks", "no-semantic", "one-attempt"]


def test_commands_and_metrics_documented() -> None:
    commands = [c.name for c in eval_app.registered_commands]
    assert commands and all(f"vitrina eval {name}" in DOC for name in commands)
    assert isinstance(eval_app, typer.Typer)
    for _, english, _, _ in METRICS[:6]:
        assert english in DOC
