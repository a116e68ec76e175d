"""Every command with options, entered as the console script enters it: `vitrina.cli.main`,
which registers only the named command's job module. Tests that drive the whole Typer app
(`vitrina.cli.app`) cannot see a command that works only when another job is loaded too
(`catalog check --questions` said "no question reader is registered" from the console script).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import IN_CI, ROOT

SAMPLE = "questions:\n  - Сумма платежей по каналам в 2025 году\n  - Delete all payments\n"


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`vitrina ARGV` in this process: the exit code, stdout then stderr."""
    from vitrina.cli import main

    try:
        main(argv)
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture
def no_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty question-reader registry, as in a fresh `vitrina catalog ...` process (another
    test of this session may have built the whole app, which fills it)."""
    monkeypatch.setattr("vitrina.catalog.commands._question_readers", [])


def test_catalog_check_questions_through_main(
    no_reader: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vitrina.catalog import DEMO_CATALOG

    sample = tmp_path / "questions.yaml"
    sample.write_text(SAMPLE, encoding="utf-8")
    argv = ["catalog", "check", str(DEMO_CATALOG), "--questions", str(sample)]
    code, out = _main([*argv, "--today", "2026-01-15", "--json"], capsys)
    assert code == 0, out
    readings = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [r["outcome"] for r in readings] == ["answered", "refuse"], out
    assert readings[0]["metrics"] == ["payment_amount"] and readings[0]["period"] == "2025 год"


def test_catalog_check_questions_from_the_console_script(tmp_path: Path) -> None:
    """The installed `vitrina` script in a fresh process: nothing registered beforehand."""
    script = Path(sys.executable).with_name("vitrina")
    if not script.is_file():
        if IN_CI:
            pytest.fail(f"CI=true but the console script {script} is not installed")
        pytest.skip(f"{script} not installed (pip install -e . makes it)")
    from vitrina.catalog import DEMO_CATALOG

    sample = tmp_path / "questions.yaml"
    sample.write_text(SAMPLE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [str(script), "catalog", "check", str(DEMO_CATALOG), "--questions", str(sample),
         "--today", "2026-01-15", "--json"],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    readings = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [r["outcome"] for r in readings] == ["answered", "refuse"], done.stdout
    assert readings[0]["metrics"] == ["payment_amount"]
    assert readings[0]["dimensions"] == ["dwh.fact_payment.channel"]


def _small_duckdb(path: Path) -> str:
    import duckdb

    with duckdb.connect(str(path)) as con:
        con.execute("create table sales (id integer primary key, sold_on date, amount double)")
        con.execute("insert into sales values (1, '2025-01-02', 10), (2, '2025-02-03', 20)")
    return f"duckdb:///{path}"


# one real invocation per command that has options, each reading at least one of them:
# a fast run where one is cheap, else a user error that names what the option said
INVOCATIONS: dict[str, tuple[list[str], int, str]] = {
    "ask": (["ask", "Сумма платежей в 2025 году", "--catalog", "{tmp}/nocat"], 2,
            "catalog folder not found: {tmp}/nocat"),
    "demo": (["demo", "--load-postgres", "nosuch://x"], 2, "not a PostgreSQL URL: 'nosuch://x'"),
    "route": (["route", "Сумма платежей", "--db", "{duckdb}", "--catalog", "{tmp}/nocat",
               "--no-llm"], 2, "error: {tmp}/nocat: catalog folder not found"),
    "onec": (["onec", "{tmp}/nobase", "--out", "{tmp}/onec"], 2, "{tmp}/nobase: neither"),
    "chat": (["chat", "--db", "{duckdb}", "--catalog", "{tmp}/nocat", "--no-llm"], 2,
             "error: {tmp}/nocat: catalog folder not found"),
    "docs": (["docs", "--model", "{tmp}/m.bim", "--out", "{tmp}/docs"], 2,
             "{tmp}/m.bim: model not found"),
    "lineage": (["lineage", "X", "--model", "{tmp}/m.bim"], 2,
                "{tmp}/m.bim: model path does not exist"),
    "serve": (["serve", "--catalog", "{tmp}/nocat", "--port", "0"], 2,
              "catalog folder not found: {tmp}/nocat"),
    "mcp": (["mcp", "--transport", "nosuch"], 2, "'nosuch' is not one of 'stdio', 'http'"),
    "config": (["config", "--base-url", "http://127.0.0.1:9/v1", "--model", "m-29", "--no-check",
                "--json"], 0, "http://127.0.0.1:9/v1"),
    "task": (["task", "x", "--db", "{duckdb}", "--catalog", "{tmp}/nocat", "--no-llm"], 2,
             "error: {tmp}/nocat: catalog folder not found"),
    "build": (["build", "{tmp}/brief.md", "--db", "{duckdb}", "--catalog", "{tmp}/nocat",
               "--no-browser"], 2, "error: {tmp}/nocat: catalog folder not found"),
    "catalog init": (["catalog", "init", "--db", "{duckdb}", "--out", "{tmp}/draft",
                      "--sample-values", "5"], 0, "drafted 1 tables into {tmp}/draft"),
    "catalog check": (["catalog", "check", "{demo_catalog}", "--questions", "{tmp}/q.yaml",
                       "--today", "2026-01-15"], 0, "2 questions: answered 1, refuse 1"),
    "token create": (["token", "create", "alice", "--role", "nosuch"], 2,
                     "--role must be one of viewer, analyst, admin, not 'nosuch'"),
    "eval run": (["eval", "run", "{tmp}/nosuite", "--limit", "1"], 2,
                 "suite not found: {tmp}/nosuite"),
    "eval compare": (["eval", "compare", "r1", "r2", "--html", "{tmp}/c.html"], 2,
                     "no run matches 'r1'"),
    "eval report": (["eval", "report", "r1", "--html", "{tmp}/r.html"], 2, "no run matches 'r1'"),
    "eval list": (["eval", "list", "--limit", "1"], 0, "no runs yet"),
    "eval review": (["eval", "review", "--run", "r7", "--case", "c1", "--verdict", "right"], 2,
                    "no run matches 'r7'"),
    "eval bank": (["eval", "bank", "--suite", "{tmp}/nosuite"], 0, "the bank is empty"),
    "board list": (["board", "list", "--board", "sqlite:///{tmp}/b.sqlite", "--build", "7"], 1,
                   "no build 7 on this board"),
    "board show": (["board", "show", "3", "--board", "sqlite:///{tmp}/b.sqlite"], 1,
                   "no task 3 on this board"),
    "board report": (["board", "report", "--board", "sqlite:///{tmp}/b.sqlite", "--build", "7"],
                     1, "no such build on this board"),
    "board comment": (["board", "comment", "3", "hi", "--board", "sqlite:///{tmp}/b.sqlite"], 1,
                     "no task 3 on this board"),
    "board answer": (["board", "answer", "3", "yes", "--board", "sqlite:///{tmp}/b.sqlite"], 1,
                    "no task 3 on this board"),
    "board approve": (["board", "approve", "3", "--board", "sqlite:///{tmp}/b.sqlite"], 1,
                     "no task 3 on this board"),
    "board reject": (["board", "reject", "3", "bad", "--board", "sqlite:///{tmp}/b.sqlite"], 1,
                    "no task 3 on this board"),
    "board reassign": (["board", "reassign", "3", "analyst", "--board",
                        "sqlite:///{tmp}/b.sqlite"], 1, "no task 3 on this board"),
    "eval verify": (["eval", "verify", "r1", "c1", "--by", "a"], 2, "no run matches 'r1'"),
    "verified list": (["verified", "list", "--catalog", "{demo_catalog}", "--pending"], 0,
                      "review queue"),
    "verified add": (["verified", "add", "--catalog", "{tmp}/nocat", "--by", "a", "-q", "x",
                      "--sql", "SELECT 1"], 2, "catalog folder not found"),
    "verified check": (["verified", "check", "--catalog", "{tmp}/nocat", "--db", "{duckdb}"], 2,
                       "catalog folder not found"),
    "verified remove": (["verified", "remove", "nosuch", "--catalog", "{demo_catalog}",
                         "--pending"], 2, "no entry 'nosuch' in the review queue"),
    "verified import": (["verified", "import", "{tmp}/t.json", "--today", "someday"], 2,
                        "--today 'someday' is not a date"),
    "verified accept": (["verified", "accept", "nosuch", "--by", "a", "--catalog",
                         "{demo_catalog}"], 2, "no entry 'nosuch' in the review queue"),
}  # fmt: skip


def _commands_with_options() -> set[str]:
    import typer

    from vitrina.cli import build_app

    found: set[str] = set()

    def walk(command, path: list[str]) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
        elif any(p.param_type_name == "option" and p.name != "help" for p in command.params):
            found.add(" ".join(path))

    walk(typer.main.get_command(build_app()), [])
    return found


def test_every_command_with_options_has_a_test_through_main() -> None:
    assert _commands_with_options() == set(INVOCATIONS)


@pytest.mark.parametrize("command", sorted(INVOCATIONS))
def test_each_command_reads_its_options_through_main(
    command: str,
    no_reader: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
    _isolated_home: Path,
) -> None:
    from vitrina.catalog import DEMO_CATALOG

    argv, expected_code, expected = INVOCATIONS[command]
    if command == "demo":  # the session's demo warehouse, not a build of its own (~20 s)
        (_isolated_home / "demo").mkdir()
        (_isolated_home / "demo" / "warehouse.duckdb").symlink_to(
            request.getfixturevalue("demo_db")
        )
    values = {"tmp": str(tmp_path), "demo_catalog": str(DEMO_CATALOG)}
    if "{duckdb}" in argv:
        values["duckdb"] = _small_duckdb(tmp_path / "small.duckdb")
    if "{tmp}/q.yaml" in argv:
        (tmp_path / "q.yaml").write_text(SAMPLE, encoding="utf-8")
    code, raw = _main([a.format(**values) for a in argv], capsys)
    out = " ".join(raw.replace("│", " ").split())  # Rich wraps and boxes long lines
    assert "Traceback" not in out, out
    assert code == expected_code, out
    assert expected.format(**values) in out, out
