"""Issue 32 item 4: a coding agent's text is fact-checked like `--llm` wording.

Through `vitrina.cli.main` with the scripted stand-in (`fake_agent.py`): an agent that
invents a procedure, a table and a percentage is rejected and the rules document kept,
with the reason in the run summary; an honest one is accepted; files the agent writes
outside its scratch folder never stay in the output folder; under `--lang ru` the prompt
asks for Russian.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from vitrina.cli import main
from vitrina.docs.agent_guard import sandbox_works

FIXTURES = Path(__file__).parent / "fixtures"
BANK = FIXTURES / "banking"
FAKE_AGENT = Path(__file__).parent / "fake_agent.py"
MEASURE = "Churn Rate"


def _run(tmp_path: Path, capsys: pytest.CaptureFixture, *extra: str) -> tuple[str, Path]:
    listing = tmp_path / "list.md"
    listing.write_text(f"# T\n## [{MEASURE}]\n", encoding="utf-8")
    out = tmp_path / "out"
    argv = ["docs", "--model", str(BANK / "model.bim"), "--sql", str(BANK / "sql")]
    argv += ["--out", str(out), "--measures", str(listing)]
    argv += ["--agent", f"{sys.executable} {FAKE_AGENT}", "--agent-timeout", "60", *extra]
    with pytest.raises(SystemExit) as done:
        main(argv)
    console = capsys.readouterr().out
    assert done.value.code in (0, None), console
    return console, out


def _doc(out: Path) -> str:
    return (out / "measures" / f"{MEASURE}.md").read_text(encoding="utf-8")


def test_an_agent_that_invents_is_rejected_and_the_rules_document_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_AGENT_MODE", "invent")
    console, out = _run(tmp_path, capsys)
    doc = _doc(out)
    for invented in ("dw.LoadEverything", "dw.SecretTable", "37%"):
        assert invented not in doc
    assert "## What it computes" in doc and "## Loading procedures" in doc  # the rules document
    index = json.loads((out / "index.json").read_text(encoding="utf-8"))
    assert index["missed"] == [] and [m["measure"] for m in index["measures"].values()] == [MEASURE]
    (reason,) = [w for w in index["warnings"] if w.startswith(f"[{MEASURE}]: the agent's text")]
    for invented in ("dw.LoadEverything", "dw.SecretTable", "37"):
        assert invented in reason
    flat = " ".join(console.split())
    assert "the agent's text names objects or numbers" in flat and "dw.SecretTable" in flat
    assert sorted(p.name for p in (out / "measures").iterdir()) == [f"{MEASURE}.md"]


def test_an_honest_agent_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_AGENT_MODE", "honest")
    console, out = _run(tmp_path, capsys)
    doc = _doc(out)
    assert doc.split("\n", 2)[1] == f"# [{MEASURE}]"  # after the hash line: the agent's text
    assert "## Loading procedures" not in doc  # not the rules document
    assert "computes" in doc and "```dax" in doc
    assert "agent's text names" not in console
    manual = (out / "combined_manual.md").read_text(encoding="utf-8")
    assert "measure documents written by the coding agent custom:" in manual  # not "rules mode"


@pytest.mark.parametrize("confined", [True, False], ids=["bubblewrap", "unconfined"])
def test_files_written_outside_the_scratch_folder_never_stay(
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    confined: bool,
) -> None:
    if confined and not sandbox_works():
        pytest.skip("bubblewrap cannot make a read-only root on this machine")
    monkeypatch.setattr("vitrina.docs.agent.sandbox_works", lambda: confined)
    stray = tmp_path / "out" / "measures" / "stray.md"
    stray.parent.mkdir(parents=True)
    monkeypatch.setenv("FAKE_AGENT_MODE", "stray")
    monkeypatch.setenv("FAKE_AGENT_STRAY", str(stray))
    _console, out = _run(tmp_path, capsys)
    assert not stray.exists()
    assert sorted(p.name for p in (out / "measures").iterdir()) == [f"{MEASURE}.md"]
    assert "## Loading procedures" not in _doc(out)  # its answer was still read and accepted


def test_the_prompt_carries_the_language_and_a_scratch_answer_path(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("vitrina.docs.agent.sandbox_works", lambda: False)  # to keep the prompt
    prompt_file = tmp_path / "prompt.txt"
    monkeypatch.setenv("FAKE_AGENT_PROMPT", str(prompt_file))
    monkeypatch.setenv("FAKE_AGENT_MODE", "honest")
    _console, out = _run(tmp_path, capsys, "--lang", "ru")
    prompt = prompt_file.read_text(encoding="utf-8")
    assert "на русском языке" in prompt and "## Факты" in prompt
    assert "in English" not in prompt
    answer = prompt.split("(создай или перезапиши его): ", 1)[1].splitlines()[0]
    assert "vitrina-agent-" in answer and str(out) not in answer
    assert not Path(answer).parent.exists()  # the scratch folder is gone
    assert f"Мера [{MEASURE}] вычисляет" in _doc(out)  # the honest agent copied Russian facts
