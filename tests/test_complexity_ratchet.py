"""The C901 ratchet in pyproject.toml is tight: `max-complexity` is the complexity of today's
most complex function, so ruff fails a function more complex than any now, and once the
hardest ones are split this test asks for the lower number (it can only come down)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIGURED = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"][
    "lint"
]["mccabe"]["max-complexity"]


def _ruff() -> str:
    beside = Path(sys.executable).with_name("ruff")
    found = str(beside) if beside.exists() else shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed (it is in the dev extra: pip install -e '.[dev]')")
    return found


def _complexities(limit: int) -> list[tuple[int, str]]:
    """(complexity, "file:function") of every function above `limit`."""
    run = subprocess.run(
        [_ruff(), "check", "src", "tests", "benchmarks", "--select", "C901", "--quiet",
         "--config", f"lint.mccabe.max-complexity={limit}", "--output-format", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    found = []
    for item in json.loads(run.stdout or "[]"):
        match = re.search(r"`(.+?)` is too complex \((\d+) >", item["message"])
        assert match, item["message"]
        where = Path(item["filename"]).relative_to(ROOT)
        found.append((int(match.group(2)), f"{where}:{match.group(1)}"))
    return sorted(found, reverse=True)


def test_no_function_is_above_the_ratchet():
    assert _complexities(CONFIGURED) == []


def test_the_ratchet_is_the_current_maximum():
    top = _complexities(CONFIGURED - 1)
    assert top, (
        f"no function reaches complexity {CONFIGURED} any more: lower "
        f"[tool.ruff.lint.mccabe] max-complexity in pyproject.toml to the new maximum, "
        f"{_complexities(10)[0] if _complexities(10) else 10}"
    )
    assert {c for c, _ in top} == {CONFIGURED}
