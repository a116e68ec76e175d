"""What the CLI loads before it is used: the heavy stacks stay out until a command needs them.

Not a timed test (figures: benchmarks/bench_cold.py): each check runs a fresh interpreter and
reads its `sys.modules`, so it holds on any machine, loaded or not.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the model stack, the PNG and Excel writers, and what only answering a question needs
NEVER_FOR_HELP = (
    "langchain_core",
    "langchain_openai",
    "langgraph",
    "openai",
    "matplotlib",
    "openpyxl",
    "pydantic",
    "sqlalchemy",
    "duckdb",
    "sqlglot",
    "httpx",
)
NEVER_WITHOUT_A_MODEL = ("langchain_openai", "openai", "matplotlib", "openpyxl")


def _loaded(code: str, names: tuple[str, ...]) -> dict:
    """Run `code` in a fresh interpreter; which of `names` it loaded (and what it printed)."""
    probe = (
        f"{code}\nimport json, sys\n"
        f"print('\\n' + json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & "
        f"set({list(names)!r}))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return {"loaded": json.loads(done.stdout.strip().splitlines()[-1]), "stdout": done.stdout}


def test_importing_the_cli_loads_no_heavy_stack() -> None:
    assert _loaded("import vitrina.cli", NEVER_FOR_HELP)["loaded"] == []


def test_help_loads_no_heavy_stack() -> None:
    code = (
        "import sys\nfrom vitrina.cli import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass"
    )
    found = _loaded(code, NEVER_FOR_HELP)
    assert "ask" in found["stdout"] and found["loaded"] == []


def test_a_rules_only_answer_loads_no_model_sdk_and_no_file_writer(
    demo_db: Path, tmp_path: Path
) -> None:
    code = f"""
from datetime import date
from pathlib import Path
from vitrina.ask import AskService
from vitrina.config import load_settings
settings = load_settings(db_url="duckdb:///{demo_db}").with_(home=Path({str(tmp_path)!r}))
service = AskService(settings, use_llm=False, write_files=False, today=date(2026, 11, 30))
result = service.ask("Количество платежей по месяцам в 2025 году")
assert result.status == "answered" and result.chart, result.status
service.close()
"""
    assert _loaded(code, NEVER_WITHOUT_A_MODEL)["loaded"] == []
    # and once the files are asked for, the writers load (the check above can fail)
    files = code.replace(
        "service.close()", "assert service.with_files(result).chart_png\nservice.close()"
    )
    assert _loaded(files, NEVER_WITHOUT_A_MODEL)["loaded"] == ["matplotlib", "openpyxl"]
