"""Planted faults in briefs, through the console entry `vitrina.cli.main` in rules mode
(issue 31 item 3): each flawed brief of tests/team/briefs/ is stopped with its line and the
right code or message, and no good brief is blocked by the gate.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
