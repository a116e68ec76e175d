"""Issue 32 item 7: files a team can read, failed procedures as errors, only-updated tables.

Through `vitrina.cli.main` on the loaders fixture plus two files: a procedure whose header
is broken (it must be a run-level error, never a loader or a step of the load order) and a
procedure that only UPDATEs a staging table (that table is loaded from outside, like its
siblings that nothing writes).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from vitrina.cli import main
from vitrina.docs.runfiles import file_mode

LOADERS = Path(__file__).parent / "fixtures" / "loaders"
BROKEN = """CREATE PROCEDURE dw.BrokenLoad (@From DATE AS
BEGIN
    INSERT INTO dw.Fact2 (Id, Qty)
    SELECT Id, Qty FROM stg.Fact2_Staging WHERE Qty > 0;
    EXEC dw.LoadFact2;
END
GO
"""
CLEAN = """CREATE PROCEDURE stg.CleanFact1Staging AS
BEGIN
    UPDATE stg.Fact1_Staging SET Amount = 0 WHERE Amount < 0;
END
GO
"""


def _run(tmp_path: Path, capsys: pytest.CaptureFixture, *extra: str) -> tuple[str, Path]:
    sql = tmp_path / "sql"
    if not sql.exists():
        shutil.copytree(LOADERS / "sql", sql)
        (sql / "Broken.sql").write_text(BROKEN, encoding="utf-8")
        (sql / "CleanStaging.sql").write_text(CLEAN, encoding="utf-8")
    out = tmp_path / "out"
    argv = ["docs", "--model", str(LOADERS / "model.bim"), "--sql", str(sql), "--out", str(out)]
    with pytest.raises(SystemExit) as done:
        main([*argv, *extra])
    captured = capsys.readouterr()
    assert done.value.code in (0, None), captured
    return captured.out, out


def _outputs(out: Path) -> list[Path]:
    return [
        out / "combined_manual.md",
        out / "index.json",
        *sorted((out / "measures").iterdir()),
    ]


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_outputs_get_the_mode_a_new_file_would(
    tmp_path: Path, capsys: pytest.CaptureFixture, umask: int, mode: int
) -> None:
    old = os.umask(umask)
    file_mode.cache_clear()  # read once per process: this test changes it
    try:
        _console, out = _run(tmp_path, capsys, "--fresh")
    finally:
        os.umask(old)
        file_mode.cache_clear()
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in _outputs(out)}
    assert len(modes) > 3 and set(modes.values()) == {mode}, modes


def test_a_procedure_that_failed_to_parse_is_an_error_never_a_loader(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    console, out = _run(tmp_path, capsys)
    flat = " ".join(console.split())
    assert "error: sql/Broken.sql:1: procedure dw.BrokenLoad failed to parse" in flat
    index = json.loads((out / "index.json").read_text(encoding="utf-8"))
    (error,) = index["errors"]
    assert "dw.BrokenLoad failed to parse (no AS before the body" in error
    assert not any("no AS before the body" in w for w in index["warnings"])  # said once
    manual = (out / "combined_manual.md").read_text(encoding="utf-8")
    assert '<a id="errors"></a>' in manual
    for entry in index["measures"].values():
        lineage = entry["lineage"]
        assert all(p["name"] != "dw.BrokenLoad" for p in lineage["procedures"])
        assert all("brokenload" not in n["id"] for n in lineage["nodes"])
    qty = (out / "measures" / "Qty Total.md").read_text(encoding="utf-8")
    assert "### dw.BrokenLoad" not in qty and "### dw.LoadFact2" in qty
    assert "Called by" not in qty  # the broken procedure EXECs dw.LoadFact2: not a caller
    assert "procedure dw.BrokenLoad (writes dw.Fact2) failed to parse" in qty
    assert "Step in the load order:** 1\n" not in qty.split("### dw.LoadFact2", 1)[0]


def test_a_table_only_updated_is_warned_like_its_siblings(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    console, out = _run(tmp_path, capsys)
    flat = " ".join(console.split())
    assert (
        "warning: stg.Fact1_Staging is read but the SQL folder only updates or deletes its rows "
        "(stg.CleanFact1Staging); its rows are loaded from outside" in flat
    )
    assert "warning: stg.Fact2_Staging is read but nothing in the SQL folder writes it" in flat
    amount = (out / "measures" / "Amount Total.md").read_text(encoding="utf-8")
    assert "stg.Fact1_Staging is read but the SQL folder only updates or deletes its rows" in amount
    # a table a loader INSERTs into is not warned, even when another procedure updates it
    assert "dw.Fact1 is read but the SQL folder only updates" not in amount


def test_the_same_in_russian(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    console, out = _run(tmp_path, capsys, "--lang", "ru")
    flat = " ".join(console.split())
    assert "ошибка: sql/Broken.sql:1: процедура dw.BrokenLoad не разобрана" in flat
    assert "stg.Fact1_Staging читается, но в папке SQL его строки только изменяются" in flat
    assert "## Ошибки" in (out / "combined_manual.md").read_text(encoding="utf-8")
