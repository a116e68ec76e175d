"""docs/reference/cli.md and settings.md are generated from the code (docs/reference/generate.py)
and kept in step by this test, Datasette's pattern: every command and option of `vitrina` has
help text and appears in cli.md, every Settings field has a description and appears in
settings.md with its environment variable, and both files are what the generator writes now."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import typer

from vitrina.cli import COMMANDS, build_app
from vitrina.config import ENV_PREFIX, Settings

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"


def _generator():
    spec = importlib.util.spec_from_file_location("reference_generate", REFERENCE / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generate():
    return _generator()


def test_every_command_and_option_has_help(generate):
    rows = generate.cli_rows()
    names = {name for name, _, _ in rows}
    assert {f"vitrina {c}" for c in COMMANDS} <= names, "a top-level command is missing"
    undocumented = [name for name, help_text, _ in rows if not help_text]
    undocumented += [f"{name} {p}" for name, _, ps in rows for p, _, h in ps if not h]
    assert not undocumented, f"give these help text in their Typer declarations: {undocumented}"


def test_the_walk_sees_every_option_click_sees(generate):
    """Checked apart from the generator: each command's options straight from click."""
    root = typer.main.get_command(build_app())
    text = (REFERENCE / "cli.md").read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"## `vitrina {name}`" in text
        for param in root.commands[name].params:  # type: ignore[attr-defined]
            for opt in param.opts if param.param_type_name == "option" else ():
                assert f"`{opt}`" in text, f"vitrina {name} {opt} is not in cli.md"


def test_every_setting_is_documented(generate):
    text = (REFERENCE / "settings.md").read_text(encoding="utf-8")
    rows = {name: description for name, _, _, description in generate.settings_rows()}
    assert set(rows) == set(Settings.model_fields)
    assert not [n for n, d in rows.items() if not d], "a Settings field needs a comment"
    for name in Settings.model_fields:
        assert f"| `{name}` | `{ENV_PREFIX}{name.upper()}` |" in text


def test_the_reference_files_are_current(generate):
    stale = [n for n, render in generate.FILES.items() if render() != (REFERENCE / n).read_text()]
    assert not stale, f"run `python docs/reference/generate.py`: {stale} are stale"
