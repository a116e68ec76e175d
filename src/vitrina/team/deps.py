"""The building blocks the team takes from below it, imported in this one place.

Interim: until the shared `vitrina.present` / `vitrina.language` packages and the public
ask entry point land on main, these names come from their old homes. After the merge this
module imports only `vitrina.ask` (public), `vitrina.present` and `vitrina.language`.
"""

from __future__ import annotations

from vitrina.ask.charts import ChartDecision, build_chart_data, choose_chart
from vitrina.ask.charts.spec import chartjs_from_data
from vitrina.ask.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.ask.compiler import column_metas, compile_plan
from vitrina.ask.numbers import format_value, to_decimal
from vitrina.ask.periods import extract_period
from vitrina.ask.periods.grain import extract_grain
from vitrina.ask.plan import PeriodRef, QueryPlan
from vitrina.ask.planner import build_plan
from vitrina.ask.text import detect_lang, normalize, phrase_stems, stem_matches, tokenize
from vitrina.ask.understand import read_question, unexplained_words

__all__ = [
    "ChartDecision",
    "ColumnMeta",
    "ColumnRole",
    "PeriodRef",
    "QueryPlan",
    "ValueFormat",
    "build_chart_data",
    "build_plan",
    "chartjs_from_data",
    "choose_chart",
    "column_metas",
    "compile_plan",
    "detect_lang",
    "extract_grain",
    "extract_period",
    "format_value",
    "normalize",
    "phrase_stems",
    "read_question",
    "stem_matches",
    "to_decimal",
    "tokenize",
    "unexplained_words",
]
