"""The task page's previews formatted like answers (issue 34, item 3): catalog labels, words
for coded values, numbers and dates as answers write them, analysis columns named in words."""

from __future__ import annotations

from vitrina.catalog import DEMO_CATALOG, load_catalog
from vitrina.task.display import preview_table, readable, step_question

CATALOG = load_catalog(DEMO_CATALOG)
SQL = "SELECT r.region_name FROM dwh.fact_payment p JOIN dwh.dim_region r ON 1 = 1"


def test_raw_preview_becomes_an_answer_table() -> None:
    output = {
        "columns": ["region_name", "payment_amount", "payment_amount_change_pct", "month"],
        "preview": [["Москва", 4028.57, 12.3, "2027-01-01"]],
        "row_count": 30,
        "meta": {"sql": SQL},
    }
    table = preview_table(output, CATALOG, "ru")
    assert table is not None
    assert table["columns"] == ["Регион", "Сумма платежей", "Изменение, %: Сумма платежей", "Месяц"]
    assert table["rows"] == [["Москва", "4\u00a0028,57\u00a0₽", "12,3\u00a0%", "январь 2027"]]
    assert table["numeric"] == [False, True, True, False] and table["total"] == 30
    english = preview_table(output, CATALOG, "en")
    assert english["columns"][0] == "Region" and english["rows"][0][3] == "January 2027"


def test_codes_are_words_and_unknown_columns_stay() -> None:
    output = {"columns": ["channel", "odd_name"], "preview": [["pos", "x"]], "meta": {}}
    table = preview_table(output, CATALOG, "ru")
    assert table["rows"] == [["POS-терминал", "x"]] and table["columns"][1] == "odd_name"
    assert preview_table({"columns": [], "preview": []}, CATALOG, "ru") is None


def test_step_question_and_readable_view() -> None:
    derived = {"args": {"shift_from_step": 1}, "outputs": [{"meta": {"question": "Q за 2024"}}]}
    assert step_question({"args": {"question": "Q"}, "outputs": []}) == "Q"
    assert step_question(derived) == "Q за 2024"
    view = readable(
        {"lang": "ru", "plan": [derived], "pending": {"kind": "step", "step": derived}}, CATALOG
    )
    assert view["plan"][0]["question"] == "Q за 2024"
    assert view["pending"]["step"]["question"] == "Q за 2024"
    assert view["plan"][0]["outputs"][0]["table"] is None
