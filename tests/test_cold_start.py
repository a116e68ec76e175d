"""What the CLI loads before it is used: the heavy stacks stay out until a command needs them.

Not a timed test (figures: benchmarks/bench_cold.py): each check runs a fresh interpreter and
reads its `sys.modules`, so it holds on any machine, loaded or not.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# the model stack, the PNG and Excel writers, and what only answering a question needs
NEVER_FOR_HELP = (
    "langchain_core",
    "langchain_openai",
    "langgraph",
    "openai",
    "PIL",  # the PNG writer
    "openpyxl",
    "xlsxwriter",
    "pydantic",
    "sqlalchemy",
    "duckdb",
    "sqlglot",
    "httpx",
)
NEVER_WITHOUT_A_MODEL = (
    "langchain_openai",
    "openai",
    "PIL",  # the PNG writer
    "openpyxl",  # the Excel reader: an answer's file is written by xlsxwriter
    "xlsxwriter",
    "jinja2",  # prompt templates render only for a model
    "httpx",  # the model transport's errors are compared once the SDK has loaded it
    "vitrina.llm.client",
    # re-export hubs deferred by vitrina.deferred_imports: imported (the module object exists)
    # but never run, so none of the modules their __init__ would import are there
    "langsmith.types.run",
    "langsmith.types.sandbox_response",
    "langgraph_sdk.client",
)


def _loaded(code: str, names: tuple[str, ...]) -> dict:
    """Run `code` in a fresh interpreter; which of `names` it loaded (and what it printed).
    A name is a top-level package (any module under it counts) or a dotted module name."""
    probe = (
        f"{code}\nimport json, sys\n"
        f"mods = set(sys.modules) | {{m.split('.')[0] for m in sys.modules}}\n"
        f"print('\\n' + json.dumps(sorted(mods & set({list(names)!r}))))"
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
    assert _loaded(files, NEVER_WITHOUT_A_MODEL)["loaded"] == ["PIL", "xlsxwriter"]


def test_a_named_command_registers_only_its_job() -> None:
    code = (
        "import sys\nfrom vitrina.cli import main\n"
        "try:\n    main(['ask', '--help'])\nexcept SystemExit:\n    pass"
    )
    jobs = ("vitrina.ask.commands", "vitrina.docs.commands", "vitrina.team.commands")
    found = _loaded(code, jobs)
    assert "question" in found["stdout"] and found["loaded"] == ["vitrina.ask.commands"]


def test_the_command_map_names_what_every_job_registers() -> None:
    import typer

    from vitrina.cli import COMMANDS, JOBS, app, build_app

    registered: dict[str, str] = {}
    for module in JOBS:
        one = build_app((module,))
        names = [c.name or c.callback.__name__.replace("_", "-") for c in one.registered_commands]
        names += [g.name for g in one.registered_groups]
        registered.update(dict.fromkeys(names, module))
    assert registered == COMMANDS
    assert isinstance(app, typer.Typer) and len(app.registered_commands) + len(
        app.registered_groups
    ) == len(COMMANDS)


@pytest.mark.parametrize("command", sorted(__import__("vitrina.cli").cli.COMMANDS))
def test_each_command_runs_as_the_console_script_runs_it(command: str, capsys) -> None:
    """`main` registers only the named command's module; a module with one command must
    still be reached by its name (`vitrina mcp --help`, not "unexpected extra argument")."""
    from vitrina.cli import main

    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0, out
    assert f"vitrina {command} [OPTIONS]" in " ".join(out.split()), out


def test_deferred_hubs_load_in_full_on_first_use_from_many_threads() -> None:
    code = """
import sys, threading
import vitrina, langgraph.types  # langsmith.types and langgraph_sdk are deferred hubs
assert "langsmith.types.run" not in sys.modules and "langgraph_sdk.client" not in sys.modules
import langsmith.types, langgraph_sdk
got, errors = [], []
def use():
    try:
        got.append((langsmith.types.Run.__name__, langgraph_sdk.get_client.__name__))
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=use) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
assert not errors and got == [("Run", "get_client")] * 8, (errors, got)
from langgraph_sdk.client import get_sync_client
from langsmith.types import SandboxResponse
"""
    found = _loaded(code, ("langsmith.types.run", "langgraph_sdk.client"))
    assert found["loaded"] == ["langgraph_sdk.client", "langsmith.types.run"]


def test_the_cold_start_question_compiles_none_of_the_costly_period_patterns(
    demo_db: Path, tmp_path: Path
) -> None:
    """`vitrina ask --no-llm` on bench_cold's question: the range and "since" patterns (~25 ms
    to compile, decision 134) are skipped, as no word of the question can start a match."""
    code = f"""
import os
os.environ.update(VITRINA_DB_URL="duckdb:///{demo_db}", VITRINA_HOME={str(tmp_path)!r})
from vitrina.cli import main
try:
    main(["ask", "--no-llm", "Сколько кошельков открыли в мае 2025?"])
except SystemExit as done:
    assert not done.code, done.code
from tests.test_periods import _hinted_patterns
from vitrina.language.periods import matchers
hinted = [name for name, rx in _hinted_patterns() if rx._compiled is not None]
print("compiled-hinted", sorted(hinted), matchers._MONTH._compiled is not None)
"""
    found = _loaded(code, ())
    assert "2\xa0142" in found["stdout"]  # the answer was shown
    assert "compiled-hinted [] True" in found["stdout"]
