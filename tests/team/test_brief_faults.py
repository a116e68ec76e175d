"""Planted faults in briefs, through the console entry `vitrina.cli.main` in rules mode
(issue 31 item 3): each flawed brief of tests/team/briefs/ is stopped with its line and the
right code or message, and no good brief is blocked by the gate.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from vitrina.cli import main

BRIEFS = Path(__file__).parent / "briefs"
# file -> (exit code, what the output must say); exit 1: an unreadable brief, 2: questions
FLAWED = {
    "bad-key-kpi.yaml": (1, ["строка 4", "'kpi'", "возможно, 'kpis'?"]),
    "bad-key-en.yaml": (1, ["line 6", "'breakdown' in a KPI", "did you mean 'by'?"]),
    "bad-missing-title.yaml": (1, ["строка 1", "нет ключа 'title'", "title: "]),
    "bad-b2b-and-b2c.yaml": (2, ["[BRIEF-008] строка 7", "B2B, B2C", "оставьте одно значение"]),
    "bad-disjoint-filters.yaml": (2, ["[BRIEF-008] line 9", "contradicts the filter of line 7"]),
    "bad-filter-value.yaml": (2, ["[BRIEF-005] строка 7", "«VIP»", "значения: B2B, B2C"]),
    "bad-period-reversed.yaml": (2, ["[BRIEF-009] строка 2", "раньше начала"]),
    "bad-period-outside.yaml": (2, ["[BRIEF-009] line 2", "entirely outside", "holds 2023-01-01"]),
    "bad-period-unreadable.yaml": (2, ["[BRIEF-003] line 2", "does not read"]),
    "bad-duplicate-synonym.yaml": (2, ["[BRIEF-006] строка 7", "повторяет KPI «Средний чек»"]),
    "bad-duplicate-id.yaml": (2, ["[BRIEF-006] line 7", "the same metric fee_income"]),
    "bad-breakdown.yaml": (2, ["[BRIEF-002] строка 5", "«цвет глаз»", "нет пути соединений"]),
}
GOOD = [
    "good-segment-b2b.yaml",  # one segment value; one metric by two breakdowns is no repeat
    "good-explicit-range.yaml",  # a range in order; two filters of one column that overlap
    "good-markdown-front-matter.md",
    "good-payments-board.yaml",  # examples/briefs/payments-2025.yaml: six KPIs
]


def _build(brief: Path, tmp_path: Path, db: Path, capsys, *extra: str) -> tuple[int, str]:
    args = ["build", str(brief), "--db", f"duckdb:///{db}", "--no-browser"]
    args += ["--board", f"sqlite:///{tmp_path / 'board.sqlite'}", *extra]
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, " ".join((captured.out + captured.err).split())


@pytest.mark.parametrize("name", sorted(FLAWED))
def test_a_flawed_brief_is_stopped_with_its_line_and_code(
    name: str, demo_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _build(BRIEFS / name, tmp_path, demo_db, capsys)
    expected_code, says = FLAWED[name]
    assert code == expected_code, out[-2000:]
    for words in says:
        assert words in out, (words, out[-2000:])
    assert "Extra inputs are not permitted" not in out and "Field required" not in out


@pytest.mark.parametrize("name", GOOD)
def test_a_good_brief_is_not_blocked(
    name: str, demo_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _build(BRIEFS / name, tmp_path, demo_db, capsys, "--json")
    assert code == 0, out[-2000:]
    result = json.loads(out)
    assert result["status"] == "done" and result["blocked"] in (None, {}), result["blocked"]


def test_a_plain_markdown_brief_gets_a_draft_and_no_build(
    demo_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text((BRIEFS / "plain-ru.md").read_text(encoding="utf-8"), encoding="utf-8")
    code, out = _build(brief, tmp_path, demo_db, capsys, "--out", str(tmp_path / "out"))
    draft = tmp_path / "brief.draft.md"
    assert code == 1 and "нет YAML front matter" in out and str(draft) in out, out
    assert "Field required" not in out and not (tmp_path / "out").exists()  # no build started
    text = draft.read_text(encoding="utf-8")
    assert text.startswith("---\n# Черновик") and "Нужен дашборд для правления" in text
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["title"] == "Платежи 2025 — обзор для правления"
    assert front["period"] == "2025-01-01..2025-12-31" and front["audience"] == "правление"
    assert front["by"] == "month"
    assert [k["metric"] for k in front["kpis"]] == [
        "payment_amount",
        "average_ticket",
        "decline_rate",
    ]
    assert front["kpis"][0]["by"] == "регионам"
    # the requester confirms the draft: it builds
    code, out = _build(draft, tmp_path, demo_db, capsys, "--json")
    assert code == 0 and json.loads(out)["status"] == "done", out[-2000:]


def test_an_english_plain_brief_and_a_draft_being_edited(
    demo_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    brief = tmp_path / "cards.md"
    brief.write_text((BRIEFS / "plain-en.md").read_text(encoding="utf-8"), encoding="utf-8")
    code, out = _build(brief, tmp_path, demo_db, capsys)
    draft = tmp_path / "cards.draft.md"
    assert code == 1 and "a draft front matter is written" in out and str(draft) in out, out
    front = yaml.safe_load(draft.read_text(encoding="utf-8").split("---\n")[1])
    assert front["audience"] == "analysts" and front["language"] == "en"
    assert front["kpis"] == [
        {"name": "cards issued", "metric": "cards_issued", "by": "card type"},
        {"name": "wallets opened", "metric": "wallets_opened"},
    ]
    draft.write_text("---\ntitle: edited by the requester\n---\n", encoding="utf-8")
    code, out = _build(brief, tmp_path, demo_db, capsys)
    assert code == 1 and "already exists (not overwritten)" in out
    assert "edited by the requester" in draft.read_text(encoding="utf-8")


def test_the_data_range_reads_iso_text_and_suppresses_what_it_cannot_read() -> None:
    """SQLite returns dates as text; a value that is no date is a trace event, never a block."""
    from datetime import date
    from types import SimpleNamespace

    from vitrina.team.gate import warehouse_span
    from vitrina.trace import Trace

    answers = {
        "SELECT MIN(a), MAX(a) FROM t": ("2009-01-01 00:00:00", "2013-12-22"),
        "SELECT MIN(b), MAX(b) FROM t": ("n/a", "n/a"),
    }
    warehouse = SimpleNamespace(execute=lambda sql: SimpleNamespace(rows=[answers[sql]]))
    trace = Trace("gate")
    span = warehouse_span(warehouse, trace)
    assert span("t", "a") == (date(2009, 1, 1), date(2013, 12, 22))
    assert span("t", "b") is None
    assert [e.message for e in trace.events] == ["gate: data range not read"]
