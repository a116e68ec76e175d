"""`vitrina verified ...` speaks the user's language (issue 37, decision 198): errors and
import reasons in Russian and English, through the console script on Chinook. `--lang`
decides; without it, the language of what the command was given (the wording of `add`,
most tickets' questions of `import`), else English.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from tests.conftest import CHINOOK_TODAY, ROOT, cli_main

TICKETS_RU = [
    {"key": "RU-1", "summary": "Выручка по счетам за 2023 год", "sql": "SELECT SUM(Total) "
     "FROM invoice WHERE InvoiceDate >= '2023-01-01' AND InvoiceDate < '2024-01-01'"},
    {"key": "RU-2", "summary": "Сколько счетов в 2022 году"},
    {"key": "RU-3", "summary": "Удалить старые счета", "sql": "DELETE FROM invoice"},
    {"key": "RU-4", "summary": "Выручка по счетам за 2021 год",
     "sql": "SELECT SUM(Total) FROM invoice WHERE strftime('%Y', InvoiceDate) = '2021'"},
]  # fmt: skip


@pytest.fixture
def cat(tmp_path: Path) -> Path:
    return Path(shutil.copytree(ROOT / "suites" / "chinook", tmp_path / "chinook"))


@pytest.fixture
def url(chinook: str) -> str:
    return f"sqlite:///file:{chinook}?mode=ro&uri=true"


def _import(capsys, cat: Path, url: str, tickets: Path, *lang: str) -> tuple[int, str]:
    """The import's exit code and its output with the table's borders and wrapping gone."""
    code, out = cli_main(
        capsys, "verified", "import", str(tickets), "--catalog", str(cat), "--db", url,
        "--today", CHINOOK_TODAY.isoformat(), *lang,
    )  # fmt: skip
    return code, " ".join(re.sub(r"[│┃┏┓┗┛┡┩└┘━─┳┻╇╈┼┬┴├┤]", " ", out).split())


def test_import_reasons_in_the_tickets_language_or_lang(
    cat: Path, url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tickets = tmp_path / "ru.json"
    tickets.write_text(json.dumps({"tickets": TICKETS_RU}, ensure_ascii=False), encoding="utf-8")
    code, out = _import(capsys, cat, url, tickets)
    assert code == 0, out
    assert "нет SQL" in out and "отклонено проверкой безопасности SQL" in out
    assert "нет границы-даты" in out
    assert "1 в очереди на проверку" in out and "3 отклонено" in out
    assert "refused" not in out and "no SQL" not in out
    shutil.rmtree(cat / "verified")
    code, out = _import(capsys, cat, url, tickets, "--lang", "en")
    assert code == 0, out
    assert "no SQL" in out and "refused by the guard" in out and "no date bound" in out
    assert "1 in the review queue" in out and "3 refused" in out


def test_every_refusal_of_the_50_tickets_has_its_russian_reason(cat: Path, url: str) -> None:
    from vitrina.catalog import load_catalog
    from vitrina.query.verified.importer import Importer
    from vitrina.query.verified.store import Bank
    from vitrina.warehouse import Warehouse

    warehouse = Warehouse(url, timeout_s=30, row_cap=1000)
    try:
        importer = Importer(
            Bank(cat / "probe"), load_catalog(cat), warehouse, today=CHINOOK_TODAY, row_cap=1000
        )
        outcomes = importer.run(ROOT / "tests" / "data" / "verified" / "tickets_chinook.json")
    finally:
        warehouse.close()
    no = [o for o in outcomes if not o.accepted]
    assert len(no) == 22
    for o in no:
        assert o.reason and o.reason_ru and o.said("ru") == o.reason_ru != o.said("en"), o
        assert any("а" <= ch <= "я" for ch in o.said("ru")), o  # Russian words, not only detail


@pytest.mark.parametrize(
    ("args", "en", "ru"),
    [
        (("remove", "no-such"), "no entry 'no-such' in the bank", "записи 'no-such' нет в банке"),
        (("accept", "no-such", "--by", "x"), "in the review queue", "нет в очереди на проверку"),
        (
            ("list", "--catalog", "{missing}"),
            "catalog folder not found",
            "папка каталога не найдена",
        ),
        (("import", "{missing}", "--today", "x"), "'x' is not a date", "'x' — не дата"),
        (("import", "{missing}"), "cannot read the file", "файл не читается"),
    ],
)
def test_errors_in_russian_with_lang_ru_and_english_by_default(
    cat: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args, en: str, ru: str
) -> None:
    args = tuple(a.replace("{missing}", str(tmp_path / "nowhere")) for a in args)
    extra = () if "--catalog" in args else ("--catalog", str(cat))
    code, out = cli_main(capsys, "verified", *args, *extra)
    assert code == 2 and "error:" in out and en in out and "Traceback" not in out, out
    code, out = cli_main(capsys, "verified", *args, *extra, "--lang", "ru")
    assert code == 2 and "ошибка:" in out and ru in out and "Traceback" not in out, out


def test_add_speaks_the_wordings_language(
    cat: Path, url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ("verified", "add", "--catalog", str(cat), "--db", url, "--by", "anna")
    code, out = cli_main(
        capsys, *base, "-q", "Выручка по счетам за 2023 год", "--sql", "DELETE FROM invoice"
    )
    assert code == 2 and "отклонено проверкой безопасности SQL" in out, out
    code, out = cli_main(
        capsys, *base, "-q", "Revenue from invoices in 2023", "--sql", "DELETE FROM invoice"
    )
    assert code == 2 and "refused by the guard" in out, out
    code, out = cli_main(
        capsys, *base, "-q", "Выручка по счетам за 2023 год", "--sql", f"@{tmp_path / 'x.sql'}"
    )
    assert code == 2 and "файл не читается" in out and "Traceback" not in out, out
    code, out = cli_main(capsys, *base, "-q", "Revenue", "--sql", "SELECT 1", "--lang", "de")
    assert code == 2 and "use ru or en" in out, out
