"""A plain-language explanation built by rules from the DAX structure and the lineage.

The LLM slot: `explain(request) -> str` may reword `request.rules_text`; the facts in
`request` come from code. When the slot is empty or fails, the rules text is used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from vitrina.docs.dax.format import flat_text
from vitrina.docs.dax.lexer import Token, TokenKind, code_tokens, tokenize
from vitrina.docs.dax.resolver import _call_args
from vitrina.docs.lineage import MeasureLineage
from vitrina.trace import Trace

AGG = {
    "SUM": ("the sum of", "сумму"), "AVERAGE": ("the average of", "среднее"), "MIN": ("the minimum of", "минимум"),
    "MAX": ("the maximum of", "максимум"), "COUNT": ("the count of values of", "количество значений"),
    "COUNTA": ("the count of non-blank values of", "количество непустых значений"),
    "DISTINCTCOUNT": ("the number of distinct values of", "количество различных значений"),
}
ITER = {
    "SUMX": ("the sum over the rows of {t} of {e}", "сумму по строкам {t} выражения {e}"),
    "AVERAGEX": ("the average over the rows of {t} of {e}", "среднее по строкам {t} выражения {e}"),
    "MINX": ("the minimum over the rows of {t} of {e}", "минимум по строкам {t} выражения {e}"),
    "MAXX": ("the maximum over the rows of {t} of {e}", "максимум по строкам {t} выражения {e}"),
    "COUNTX": ("the count over the rows of {t} of {e}", "количество по строкам {t} выражения {e}"),
}


@dataclass(frozen=True)
class ExplainRequest:
    """What an LLM may word; it must not add facts."""

    measure: str
    lang: str
    expression: str
    rules_text: str
    lineage: MeasureLineage


Explainer = Callable[[ExplainRequest], str]


def _describe(tokens: list[Token], lang: str, depth: int = 0) -> str:
    """A phrase for one DAX expression (token run without whitespace and comments)."""
    ru = lang == "ru"
    if not tokens:
        return "—"
    # VAR ... RETURN x: describe x
    ret = next((i for i, t in enumerate(tokens) if t.kind is TokenKind.IDENT and t.text.upper() == "RETURN"), None)
    if ret is not None and tokens[0].text.upper() == "VAR":
        return _describe(tokens[ret + 1 :], lang, depth)
    text = flat_text(tokens)
    if depth > 2:
        return f"`{text}`"
    first = tokens[0]
    if first.kind is TokenKind.IDENT and len(tokens) > 1 and tokens[1].kind is TokenKind.LPAREN:
        spans, close = _call_args(tokens, 1)
        if close == len(tokens) - 1:
            fn = first.text.upper()
            args = [tokens[s:e] for s, e in spans]
            d = [_describe(a, lang, depth + 1) for a in args]
            if fn in AGG and args:
                return f"{AGG[fn][1 if ru else 0]} {d[0]}"
            if fn in ITER and len(args) >= 2:
                return ITER[fn][1 if ru else 0].format(t=d[0], e=d[1])
            if fn == "COUNTROWS" and args:
                return f"количество строк {d[0]}" if ru else f"the number of rows of {d[0]}"
            if fn == "DIVIDE" and len(args) >= 2:
                base = (f"результат деления, где делимое — {d[0]}, делитель — {d[1]}" if ru
                        else f"{d[0]} divided by {d[1]}")
                if len(args) > 2:
                    base += f" ({d[2]} при нулевом делителе)" if ru else f" ({d[2]} when the divisor is zero or blank)"
                return base
            if fn in ("CALCULATE", "CALCULATETABLE") and args:
                if len(args) == 1:
                    return f"{d[0]} в изменённом контексте" if ru else f"{d[0]} with the row context turned into a filter"
                filt = "; ".join(f"`{flat_text(a)}`" for a in args[1:])
                return f"{d[0]} при фильтрах {filt}" if ru else f"{d[0]} evaluated with the filters {filt}"
            if fn in ("TOTALYTD", "TOTALQTD", "TOTALMTD") and args:
                period = {"TOTALYTD": ("year", "года"), "TOTALQTD": ("quarter", "квартала"), "TOTALMTD": ("month", "месяца")}[fn]
                return f"{d[0]} с начала {period[1]}" if ru else f"{d[0]} from the start of the {period[0]} to date"
            if fn in ("IF", "SWITCH"):
                return f"значение по условию (`{text[:80]}`)" if ru else f"a value chosen by condition (`{text[:80]}`)"
    if len(tokens) == 1:
        return f"`{first.text}`"
    if len(tokens) == 2 and tokens[1].kind is TokenKind.BRACKET:
        return f"`{text}`"
    return f"`{text}`" if len(text) <= 80 else ("выражение" if ru else "an expression")


def rules_explanation(lin: MeasureLineage, lang: str) -> str:
    """Two or three sentences: what the formula computes and where its data comes from."""
    ru = lang == "ru"
    toks = code_tokens(tokenize(lin.expression))
    what = _describe(toks, lang)
    parts = [f"Мера [{lin.measure}] вычисляет {what}." if ru else f"[{lin.measure}] computes {what}."]
    if lin.all_measures:
        names = ", ".join(f"[{m}]" for m in lin.all_measures[:8]) + (" …" if len(lin.all_measures) > 8 else "")
        one = len(lin.all_measures) == 1
        parts.append((f"Она опирается на меру {names}." if one else f"Она опирается на меры {names}.") if ru
                     else f"It builds on the measure{'' if one else 's'} {names}.")
    if lin.model_tables:
        tables = ", ".join(f"'{t}'" for t in lin.model_tables)
        one = len(lin.model_tables) == 1
        parts.append(f"Данные берутся из {'таблицы' if one else 'таблиц'} модели {tables}." if ru
                     else f"Its data comes from the model table{'' if one else 's'} {tables}.")
    wh = [o.name for o in lin.sql_objects if o.depth == 0 and o.found]
    if wh:
        one = len(wh) == 1
        parts.append(f"Они загружаются из {'объекта' if one else 'объектов'} хранилища {', '.join(wh)}." if ru
                     else f"They are loaded from the warehouse object{'' if one else 's'} {', '.join(wh)}.")
    if lin.procedures:
        procs = ", ".join(p.name for p in lin.procedures[:5])
        one = len(lin.procedures) == 1
        parts.append((f"Таблицы хранилища загружает процедура {procs}." if one else f"Таблицы хранилища загружают процедуры {procs}.")
                     if ru else f"The warehouse tables are loaded by the procedure{'' if one else 's'} {procs}.")
    if lin.time_intelligence:
        fns = sorted({t.split("(", 1)[0] for t in lin.time_intelligence})
        parts.append(f"Используется логика времени: {', '.join(fns)}." if ru else f"It uses time intelligence: {', '.join(fns)}.")
    return " ".join(parts)


def explanation(lin: MeasureLineage, lang: str, explain: Explainer | None, trace: Trace | None = None) -> str:
    """Rules text, reworded by the LLM slot when one is given and it answers."""
    text = rules_explanation(lin, lang)
    if explain is None:
        return text
    try:
        worded = explain(ExplainRequest(measure=lin.measure, lang=lang, expression=lin.expression, rules_text=text, lineage=lin))
    except Exception as exc:
        if trace is not None:
            trace.suppressed("explanation LLM failed; rules text used", measure=lin.measure, error=str(exc)[:200])
        return text
    if not isinstance(worded, str) or not worded.strip():
        if trace is not None:
            trace.rejected("explanation LLM returned nothing; rules text used", measure=lin.measure)
        return text
    return worded.strip()
