"""No value a node stores in task state is larger than MAX_VALUE_CHARS: a huge cell in a
step's preview goes to a file under the task's folder (referenced from state), past the
task's quota it is cut, and a trace event says which happened."""

from __future__ import annotations

from pathlib import Path

from vitrina.task import bounded as bounded_module
from vitrina.task.bounded import MAX_VALUE_CHARS, bounded_update
from vitrina.task.state import Step, ToolOutput


def _update(cell: str) -> dict:
    output = ToolOutput(
        tool="run_sql", ok=True, summary="1 row", columns=["x"], row_count=1, preview=[[cell]]
    )
    return {
        "plan": [Step(n=1, title="t", status="in_progress", outputs=[output])],
        "status": "running",
    }


def test_a_huge_cell_goes_to_a_file(tmp_path: Path) -> None:
    cell = "я" * (30 << 20 >> 1)  # a 30 MB (UTF-8) cell
    update = bounded_update(_update(cell), str(tmp_path))
    stored = update["plan"][0].outputs[0].preview[0][0]
    assert len(stored) < 1_000 and "characters; the whole value is in" in stored
    files = list((tmp_path / "state-values").iterdir())
    assert len(files) == 1 and files[0].read_text(encoding="utf-8") == cell
    assert update["trace"][-1].message == "a large value went to a file"
    assert update["status"] == "running"


def test_small_values_are_untouched(tmp_path: Path) -> None:
    update = _update("x" * MAX_VALUE_CHARS)
    assert bounded_update(update, str(tmp_path))["plan"][0] is update["plan"][0]
    assert not (tmp_path / "state-values").exists()


def test_over_the_quota_the_value_is_cut(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(bounded_module, "FILES_QUOTA_BYTES", 100_000)
    update = bounded_update({"summary": "s" * 200_000}, str(tmp_path))
    assert "cut: over the task's file quota" in update["summary"] and len(update["summary"]) < 1_000
    assert update["trace"][-1].kind == "rejected"
