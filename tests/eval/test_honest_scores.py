"""Scores that cannot flatter, through the console script (`vitrina.cli.main`): the accuracy
over decided cases always stands beside the decided share and the right count over all
cases; a matrix ranks by right over all; a bad matrix fails before any configuration runs;
`eval report` and `eval list` know matrices; `--db/--catalog` run a suite elsewhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from vitrina.cli import main
from vitrina.eval.records import CaseRecord, RunRecord
from vitrina.eval.store import EvalStore, now

DEMO_CATALOG = Path(__file__).resolve().parents[2] / "src" / "vitrina" / "demo_catalog"


@pytest.fixture(autouse=True)
def _wide(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")  # tables on one line each


def _cli(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(argv)
    captured = capsys.readouterr()
    return int(done.value.code or 0), captured.out, captured.err


def _case(n: int, verdict: str) -> CaseRecord:
    return CaseRecord(
        case_id=f"c{n}", kind="plain", question=f"q{n}", expect="answered", verdict=verdict
    )


def _run(run_id: str, name: str, verdicts: list[str], matrix_id: str) -> RunRecord:
    cases = [_case(n, v) for n, v in enumerate(verdicts)]
    return RunRecord(
        id=run_id,
        suite="flattery",
        config_name=name,
        matrix_id=matrix_id,
        started_at=now(),
        finished_at=now(),
        cases=cases,
    )


@pytest.fixture
def flattering_matrix(store: EvalStore) -> str:
    """`cautious` is 100% right over decided cases but decided only 4 of 10; `bold` is 60%
    over decided and 6 of 10 right: the accuracy alone ranks them the wrong way round."""
    cautious = _run("aaa1111111", "cautious", ["right"] * 4 + ["pending"] * 6, "m000000001")
    bold = _run("bbb2222222", "bold", ["right"] * 6 + ["wrong"] * 4, "m000000001")
    for run in (cautious, bold):
        store.save_run(run)
    store.save_matrix("m000000001", "flattery", [cautious.id, bold.id])
    return "m000000001"


def test_matrix_report_ranks_by_right_over_all(flattering_matrix: str, capsys, tmp_path) -> None:
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    code, out, err = _cli(
        ["eval", "report", "m0000", "--json", "--markdown", str(md), "--html", str(html)], capsys
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["kind"] == "matrix" and data["id"] == flattering_matrix
    first, second = data["runs"]
    assert (first["config_name"], first["rank"]) == ("bold", 1)
    assert (second["config_name"], second["rank"]) == ("cautious", 2)
    cautious, bold = second["summary"], first["summary"]
    assert cautious["accuracy"] == 1.0  # the flattering number is still shown...
    assert cautious["decided_share"] == 0.4  # ...beside what it leaves out
    assert cautious["right_over_all"] == 0.4 and cautious["right_of_all"] == "4/10"
    assert bold["right_of_all"] == "6/10" and bold["decided_of_all"] == "10/10"

    page = md.read_text(encoding="utf-8")
    ranking = page[page.index("## Ranking") :]
    assert ranking.index("bold") < ranking.index("cautious")
    assert "| 1 | bold (bbb2222222) | 6/10 | 60.0% | 10/10 (100.0%) | 60.0% |" in page
    assert "| 2 | cautious (aaa1111111) | 4/10 | 40.0% | 4/10 (40.0%) | 100.0% |" in page
    assert "decided (share of cases)" in html.read_text(encoding="utf-8")

    code, out, _ = _cli(["eval", "report", "last", "--json"], capsys)
    assert json.loads(out)["kind"] == "matrix"  # the newest run comes with its whole matrix
    code, out, _ = _cli(["eval", "report", "bbb2222222", "--json"], capsys)
    assert [r["config_name"] for r in json.loads(out)["runs"]] == ["bold"]  # a run named: itself

    code, out, err = _cli(["eval", "report", flattering_matrix], capsys)
    assert code == 0, err
    assert "ranking by right over all cases" in out
    assert "accuracy over decided cases" in out and "right / all cases" in out
    assert out.index("1 │ bold") < out.index("2 │ cautious")


def test_list_knows_matrices(flattering_matrix: str, capsys) -> None:
    code, out, err = _cli(["eval", "list"], capsys)
    assert code == 0, err
    assert "matrices" in out and flattering_matrix in out
    assert "4/10 (40.0%)" in out  # the decided share of the cautious run
    code, out, _ = _cli(["eval", "list", "--json"], capsys)
    data = json.loads(out)
    assert [m["id"] for m in data["matrices"]] == [flattering_matrix]
    by_name = {r["config_name"]: r["summary"] for r in data["runs"]}
    assert by_name["cautious"]["right_over_all"] == 0.4 and by_name["bold"]["accuracy"] == 0.6


def _suite(tmp_path: Path, **head) -> Path:
    body = {
        "name": "elsewhere",
        "today": "2026-11-30",
        **head,
        "cases": [
            {
                "id": "mortgages",
                "question": "Сколько ипотек выдали в 2025 году?",
                "expect": "refused",
            }
        ],
    }
    path = tmp_path / "elsewhere.yaml"
    path.write_text(yaml.safe_dump(body, allow_unicode=True), encoding="utf-8")
    return path


def test_bad_matrix_fails_before_any_config_runs(
    tmp_path: Path, demo_db: Path, store: EvalStore, capsys, monkeypatch
) -> None:
    monkeypatch.delenv("VITRINA_LLM_MODEL", raising=False)
    suite = _suite(tmp_path, warehouse=f"duckdb:///{demo_db}")
    bad_key = tmp_path / "bad_key.yaml"
    bad_key.write_text(
        "name: m\nconfigs:\n  - name: ok\n    mode: rules\n"
        "  - name: broken\n    mode: rules\n    options: {no_such_switch: true}\n",
        encoding="utf-8",
    )
    code, out, err = _cli(["eval", "run", str(suite), "--matrix", str(bad_key)], capsys)
    assert code == 2
    assert f"{bad_key}:7" in err and "configs.1.options" in err and "broken" in err
    assert "no_such_switch" in err and "Traceback" not in err + out

    needs_model = tmp_path / "needs_model.yaml"
    needs_model.write_text(
        "configs:\n  - name: first\n    mode: rules\n  - name: second\n    mode: llm\n",
        encoding="utf-8",
    )
    code, out, err = _cli(["eval", "run", str(suite), "--matrix", str(needs_model)], capsys)
    assert code == 2 and f"{needs_model}:4" in err and "configs[2] (second)" in err
    assert "no model is configured" in err
    assert store.list_runs() == []  # the good first configuration did not run either


def test_run_on_another_warehouse(tmp_path: Path, demo_db: Path, capsys) -> None:
    suite = _suite(tmp_path, warehouse=f"duckdb:///{tmp_path / 'absent.duckdb'}", catalog="none")
    argv = ["eval", "run", str(suite), "--config", str(tmp_path / "rules.yaml"), "--json"]
    (tmp_path / "rules.yaml").write_text("name: rules\nmode: rules\n", encoding="utf-8")
    code, _, err = _cli([*argv, "--db", f"duckdb:///{demo_db}", "--catalog", "nowhere"], capsys)
    assert code == 2 and "nowhere" in err and "catalog folder not found" in err

    code, out, err = _cli(
        [*argv, "--db", f"duckdb:///{demo_db}", "--catalog", str(DEMO_CATALOG)], capsys
    )
    assert code == 0, err
    data = json.loads(out)
    (run,) = data["runs"]
    assert run["summary"]["right_of_all"] == "1/1" and run["summary"]["decided_share"] == 1.0
