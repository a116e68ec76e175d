"""MCP describe_measure / trace_lineage straight from --model/--sql, cached by content hash."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vitrina.config import load_settings
from vitrina.docs.live import LiveDocs, reword
from vitrina.mcp import tools
from vitrina.mcp.tools import Toolbox, ToolFailure

BANK = Path(__file__).parent / "fixtures" / "banking"


def _box(tmp_path: Path) -> tuple[Toolbox, Path]:
    sql = tmp_path / "sql"
    shutil.copytree(BANK / "sql", sql)
    return Toolbox(
        load_settings(), docs_dir=tmp_path / "none", live_docs=LiveDocs(BANK / "model.bim", [sql])
    ), sql


def test_tools_answer_from_the_model_and_sql_folder(tmp_path: Path) -> None:
    box, _sql = _box(tmp_path)
    lin = tools.trace_lineage(box, "[Churned Customers]")
    names = [p["name"] for p in lin["procedures"]]
    assert "etl.MergeChurnAndLoyalty" in names and "dw.LoadFactTransaction" in names
    assert any("CASE WHEN" in s["expression"] for s in lin["column_steps"])
    doc = tools.describe_measure(box, "Churn Rate")
    assert doc["source"] == "model" and doc["markdown"].startswith("# [Churn Rate]")
    with pytest.raises(ToolFailure, match=r"did you mean \[Churn Rate\]"):
        tools.describe_measure(box, "Churn Rat")


def test_the_index_is_rebuilt_only_when_a_file_changes(tmp_path: Path) -> None:
    box, sql = _box(tmp_path)
    live = box.live_docs
    first = live.workspace()
    assert live.workspace() is first
    merge = sql / "MergeChurnAndLoyalty.sql"
    merge.write_text(merge.read_text(encoding="utf-8").replace("> 90", "> 30"), encoding="utf-8")
    assert live.workspace() is not first
    assert any(
        "> 30" in s["expression"]
        for s in tools.trace_lineage(box, "Churned Customers")["column_steps"]
    )


def test_llm_flag_without_a_model_is_a_clear_failure(tmp_path: Path) -> None:
    box, _sql = _box(tmp_path)
    with pytest.raises(ToolFailure, match="no model is configured"):
        tools.describe_measure(box, "Churn Rate", llm=True)


def test_reword_keeps_the_rules_text_when_the_model_invents(tmp_path: Path) -> None:
    from vitrina.llm.client import LLMClient
    from vitrina.llm.fake import ScriptedChatModel

    _ws, _m, lin = LiveDocs(BANK / "model.bim", [BANK / "sql"]).lineage("Churn Rate")
    client = LLMClient(
        ScriptedChatModel({"docs_explain": ["[Churn Rate] is 42 percent of [Churned Customers]."]}),
        timeout_s=5,
        max_retries=0,
    )
    out = reword(lin.model_dump(mode="json"), "en", client)
    assert not out["worded"] and out["text"] == out["rules_text"]
    assert any(e["kind"] == "rejected" for e in out["trace"])
