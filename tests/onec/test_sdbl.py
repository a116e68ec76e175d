"""The SDBL check: real errors caught, each known false alarm of tree-sitter-hbk forgiven by its rule."""

from __future__ import annotations

import pytest

from vitrina.onec import check_query
from vitrina.trace import Trace

CASES = [
    # (query, ok, forgiving rule or None)
    ("ВЫБРАТЬ Т.А ИЗ РегистрНакопления.П.Обороты(&Н, &К, , Склад = &С) КАК Т", True, "empty_virtual_table_parameter"),
    ("ВЫБРАТЬ Т.А ИЗ РегистрНакопления.П.Обороты(&Н, &К, Месяц, ) КАК Т", True, "empty_virtual_table_parameter"),
    ("ВЫБРАТЬ Т.А КАК А ИЗ Справочник.Х КАК Т ИТОГИ СУММА(А) ПО ОБЩИЕ, Б", True, "comma_after_overall"),
    ("SELECT T.A AS A FROM Catalog.X AS T TOTALS SUM(A) BY OVERALL, B", True, "comma_after_overall"),
    ("ВЫБРАТЬ Т.А ИЗ РегистрНакопления.П.Остатки(&П, ) КАК Т", True, None),
    ("ВЫБРАТЬ Т.А КАК ИЗ Справочник.Х КАК Т", False, None),
    ("ВЫБРАТЬ ИЗ ГДЕ", False, None),
    ("ВЫБРАТЬ Т.А ИЗ РегистрНакопления.П.Обороты(&Н, &К,, ,) КАК Т ГДЕ", False, None),
]


@pytest.mark.parametrize("query, ok, rule", CASES, ids=[c[0][:60] for c in CASES])
def test_known_false_alarms_and_real_errors(query, ok, rule):
    trace = Trace("check")
    result = check_query(query, trace=trace)
    assert result.checked and result.ok is ok, (result.errors, result.forgiven)
    assert [f.rule for f in result.forgiven][:1] == ([rule] if rule else [])
    if rule:
        assert any(e.kind.value == "suppressed" and e.data.get("rule") == rule for e in trace.events)


def test_error_says_where():
    result = check_query("ВЫБРАТЬ\n\tТ.А КАК\nИЗ Справочник.Х КАК Т")
    assert not result.ok and result.errors[0].line == 2 and "line 2" in str(result.errors[0])
