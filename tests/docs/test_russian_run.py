"""Issue 32 item 6: under `--lang ru` nothing of the English message catalog is shown.

A real run (WWI's model and its SSDT project, through `vitrina.cli.main`) in Russian:
the console summary, the missed list, the errors and warnings, the manual and every
document are searched for every fixed English phrase the docs job can print (the message
catalog, the document and console labels, the explanation's phrases). Code (fenced blocks
and `quoted` code) is the author's text and is not searched.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.conftest import writable_copy

from vitrina.cli import main
from vitrina.docs.writer import explain
from vitrina.docs.writer.i18n import LABELS
from vitrina.docs.writer.messages import english_fragments, translate_warning

_CODE = re.compile(r"```.*?```|`[^`\n]+`", re.DOTALL)


def english_catalog() -> list[str]:
    """Every fixed English phrase of two words or more that a Russian run must not show."""
    phrases = set(english_fragments())
    russian = set(LABELS["ru"].values())
    for key, text in LABELS["en"].items():
        if text in russian or key in ("manual",):
            continue
        phrases.update(p.strip(" .:;,()") for p in re.split(r"\{\w*\}", text))
    for table in (explain.AGG, explain.ITER, explain.TIME_WORDS):
        for en, _ru in table.values():
            phrases.update(p.strip(" .,") for p in re.split(r"\{\w*\}", en))
    return sorted(p for p in phrases if " " in p and len(p) >= 8)


def _visible(text: str) -> str:
    """What a reader sees as prose: code blocks and quoted code taken out, spaces folded."""
    return " ".join(_CODE.sub(" ", text).split())


def test_the_catalog_is_not_empty_and_is_translated() -> None:
    catalog = english_catalog()
    assert len(catalog) > 100
    assert any("is read but nothing in the SQL folder writes it" in p for p in catalog)
    assert "Loading procedures" in catalog and "documents written" in catalog
    warning = (
        "Integration.City_Staging is read but nothing in the SQL folder writes it (loaded from "
        "outside: an ETL package, a file or another database?)"
    )
    assert not any(p in translate_warning(warning, "ru") for p in catalog)


def test_a_russian_run_shows_no_english_message(
    shared_fixtures: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    sql = tmp_path / "sql"
    writable_copy(shared_fixtures / "wwi" / "dw-ssdt", sql)
    (sql / "Broken.sql").write_text(  # a procedure that fails to parse: a run-level error
        "CREATE PROCEDURE Integration.BrokenLoad (@From DATE AS\nBEGIN\n"
        "    INSERT INTO Fact.Sale ([Sale Key]) SELECT 1;\nEND\nGO\n",
        encoding="utf-8",
    )
    listing = tmp_path / "list.md"
    listing.write_text(
        "# Продажи\n## [Total Sales], [Total Sales by City], [Нет такой меры]\n", encoding="utf-8"
    )
    out = tmp_path / "out"
    argv = ["docs", "--model", str(shared_fixtures / "wwi" / "model" / "Model.bim")]
    argv += ["--sql", str(sql), "--out", str(out), "--lang", "ru", "--measures", str(listing)]
    with pytest.raises(SystemExit) as done:
        main(argv)
    captured = capsys.readouterr()
    assert done.value.code in (0, None), captured
    console = captured.out + captured.err
    assert "пропущенные меры" in console and "предупреждение:" in console
    assert "ошибка:" in console and "Integration.BrokenLoad" in console
    texts = {"console": console, "manual": (out / "combined_manual.md").read_text("utf-8")}
    for doc in (out / "measures").iterdir():
        texts[doc.name] = doc.read_text("utf-8")
    assert len(texts) == 4  # the console, the manual and two documents
    catalog = english_catalog()
    found = {name: [p for p in catalog if p in _visible(text)] for name, text in texts.items()}
    assert found == {name: [] for name in texts}
