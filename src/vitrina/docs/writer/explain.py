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
from vitrina.docs.writer.i18n import object_word
from vitrina.trace import Trace

AGG = {
    "SUM": ("the sum of", "сумму"),
    "AVERAGE": ("the average of", "среднее"),
    "MIN": ("the minimum of", "минимум"),
    "MAX": ("the maximum of", "максимум"),
    "COUNT": ("the count of values of", "количество значений"),
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

# a quoted sub-expression is at most 120 characters; each token has one or more, so the
# text of the first 120 tokens decides (a prefix of the whole: linear at any nesting)
_QUOTE_TOKENS = 120

REMOVERS = frozenset(
    {"ALL", "REMOVEFILTERS", "ALLEXCEPT", "ALLSELECTED", "ALLNOBLANKROW", "ALLCROSSFILTERED"}
)
ITERATORS = frozenset(
    {
        "SUMX",
        "AVERAGEX",
        "MINX",
        "MAXX",
        "COUNTX",
        "COUNTAX",
        "PRODUCTX",
        "CONCATENATEX",
        "RANKX",
        "FILTER",
        "ADDCOLUMNS",
        "GENERATE",
        "GENERATEALL",
        "SELECTCOLUMNS",
        "MEDIANX",
        "PERCENTILEX.INC",
        "PERCENTILEX.EXC",
        "STDEVX.P",
        "STDEVX.S",
        "VARX.P",
        "VARX.S",
        "TOPN",
    }
)
TIME_WORDS = {
    "SAMEPERIODLASTYEAR": ("the same period one year earlier", "тот же период годом ранее"),
    "DATEADD": ("the dates shifted by DATEADD", "даты, сдвинутые DATEADD"),
    "PARALLELPERIOD": (
        "a whole parallel period (PARALLELPERIOD)",
        "целый параллельный период (PARALLELPERIOD)",
    ),
    "DATESYTD": ("the year to date", "период с начала года"),
    "DATESQTD": ("the quarter to date", "период с начала квартала"),
    "DATESMTD": ("the month to date", "период с начала месяца"),
    "TOTALYTD": ("the year to date", "период с начала года"),
    "TOTALQTD": ("the quarter to date", "период с начала квартала"),
    "TOTALMTD": ("the month to date", "период с начала месяца"),
    "DATESINPERIOD": (
        "a moving window of dates (DATESINPERIOD)",
        "скользящее окно дат (DATESINPERIOD)",
    ),
    "DATESBETWEEN": ("the dates between two bounds", "даты между двумя границами"),
    "PREVIOUSYEAR": ("the previous year", "предыдущий год"),
    "PREVIOUSMONTH": ("the previous month", "предыдущий месяц"),
    "PREVIOUSQUARTER": ("the previous quarter", "предыдущий квартал"),
    "PREVIOUSDAY": ("the previous day", "предыдущий день"),
    "NEXTYEAR": ("the next year", "следующий год"),
    "NEXTMONTH": ("the next month", "следующий месяц"),
}


def _call(tokens: list[Token]) -> tuple[str, list[list[Token]]] | None:
    """(FUNCTION, argument token runs) when the tokens are exactly one call."""
    if len(tokens) > 1 and tokens[0].kind is TokenKind.IDENT and tokens[1].kind is TokenKind.LPAREN:
        spans, close = _call_args(tokens, 1)
        if close == len(tokens) - 1:
            return tokens[0].text.upper(), [tokens[s:e] for s, e in spans]
    return None


def classify_filter(arg: list[Token], lang: str) -> tuple[str, str]:
    """(kind, phrase) of one CALCULATE filter argument: removal, filter, relationship, time,
    keep."""
    ru = lang == "ru"
    text = flat_text(arg)
    call = _call(arg)
    fn = call[0] if call else ""
    if fn in REMOVERS:
        targets = ", ".join(flat_text(a) for a in call[1]) if call else ""
        if fn == "ALLEXCEPT":
            return "removal", (
                f"снимает все фильтры с {targets.split(', ')[0]}, кроме "
                f"{', '.join(targets.split(', ')[1:])}"
                if ru
                else f"removes every filter on {targets.split(', ')[0]} except "
                f"{', '.join(targets.split(', ')[1:])}"
            )
        if fn == "ALLSELECTED":
            return "removal", (
                f"возвращает выбор пользователя вне визуала для {targets}"
                if ru
                else f"restores the outer (visual-level) selection on {targets}"
            )
        return "removal", (
            f"снимает фильтры с {targets or 'всей модели'} ({fn})"
            if ru
            else f"removes the filters on {targets or 'the whole model'} ({fn})"
        )
    if fn == "KEEPFILTERS" and call and call[1]:
        return "filter", (
            f"добавляет фильтр `{flat_text(call[1][0])}`, не заменяя действующие (KEEPFILTERS)"
            if ru
            else f"adds the filter `{flat_text(call[1][0])}` on top of the existing ones "
            "(KEEPFILTERS)"
        )
    if fn in ("USERELATIONSHIP", "CROSSFILTER"):
        return "relationship", (
            f"меняет связь: `{text}`" if ru else f"changes the relationship used: `{text}`"
        )
    if fn in TIME_WORDS:
        words = TIME_WORDS[fn][1 if ru else 0]
        return "time", (
            f"заменяет фильтр дат на {words}: `{text}`"
            if ru
            else f"replaces the date filter with {words}: `{text}`"
        )
    if fn == "FILTER" and call and len(call[1]) >= 2:
        return "filter", (
            f"оставляет строки {flat_text(call[1][0])}, где {flat_text(call[1][1])}"
            if ru
            else f"keeps the rows of {flat_text(call[1][0])} where `{flat_text(call[1][1])}`"
        )
    if fn in ("VALUES", "TREATAS", "DATATABLE", "SUMMARIZE", "CALCULATETABLE") or (
        not fn and arg and arg[0].kind is TokenKind.LBRACE
    ):
        return "filter", (
            f"фильтрует по таблице `{text}`" if ru else f"filters by the table `{text}`"
        )
    return "filter", (
        f"задаёт фильтр `{text}` (заменяет фильтры на этих столбцах)"
        if ru
        else f"sets the filter `{text}` (it replaces existing filters on those columns)"
    )


def _describe(
    tokens: list[Token],
    lang: str,
    depth: int = 0,
    notes: list[str] | None = None,
    in_iterator: bool = False,
) -> str:
    """A phrase for one DAX expression (token run without whitespace and comments)."""
    ru = lang == "ru"
    notes = notes if notes is not None else []
    if not tokens:
        return "—"
    if depth > 3:  # deeper parts are quoted, not described: the phrase stays readable
        return _quoted(tokens, ru)
    tokens = _after_variables(tokens, lang, depth, notes, in_iterator)
    if not tokens:
        return "—"
    text = flat_text(tokens[:_QUOTE_TOKENS])
    call = _call(tokens)
    if call is not None:
        fn, args = call
        inner = in_iterator or fn in ITERATORS
        d = [
            _describe(a, lang, depth + 1, notes, inner if k > 0 else in_iterator)
            for k, a in enumerate(args)
        ]
        if fn in AGG and args:
            return f"{AGG[fn][1 if ru else 0]} {d[0]}"
        if fn in ITER and len(args) >= 2:
            _note_once(
                notes,
                f"итератор {fn} вычисляет выражение для каждой строки {flat_text(args[0])}"
                if ru
                else f"the iterator {fn} evaluates its expression row by row over "
                f"{flat_text(args[0])}",
            )
            return ITER[fn][1 if ru else 0].format(t=d[0], e=d[1])
        if fn == "COUNTROWS" and args:
            return f"количество строк {d[0]}" if ru else f"the number of rows of {d[0]}"
        if fn == "DIVIDE" and len(args) >= 2:
            base = (
                f"результат деления, где делимое — {d[0]}, делитель — {d[1]}"
                if ru
                else f"{d[0]} divided by {d[1]}"
            )
            if len(args) > 2:
                base += (
                    f" ({d[2]} при нулевом делителе)"
                    if ru
                    else f" ({d[2]} when the divisor is zero or blank)"
                )
            else:
                base += (
                    " (пусто при нулевом делителе)"
                    if ru
                    else " (blank when the divisor is zero or blank)"
                )
            return base
        if fn in ("CALCULATE", "CALCULATETABLE") and args:
            if in_iterator:
                _note_once(
                    notes,
                    "CALCULATE внутри итератора выполняет переход контекста: текущая "
                    "строка становится фильтром"
                    if ru
                    else "CALCULATE inside an iterator performs a context transition: the "
                    "current row becomes a filter",
                )
            parts = [classify_filter(a, lang) for a in args[1:]]
            if not parts:
                return (
                    f"{d[0]} с переходом контекста (строка становится фильтром)"
                    if ru
                    else f"{d[0]} with a context transition (the current row becomes a filter)"
                )
            return (
                f"{d[0]}, где CALCULATE " + "; ".join(p for _, p in parts)
                if ru
                else (f"{d[0]}, where CALCULATE " + "; ".join(p for _, p in parts))
            )
        if fn in ("TOTALYTD", "TOTALQTD", "TOTALMTD") and args:
            words = TIME_WORDS[fn][1 if ru else 0]
            return f"{d[0]} за {words}" if ru else f"{d[0]} over {words}"
        if fn in ("IF", "SWITCH"):
            return (
                f"значение по условию (`{text[:120]}`)"
                if ru
                else f"a value chosen by condition (`{text[:120]}`)"
            )
        if fn in ITERATORS:
            _note_once(
                notes,
                f"итератор {fn} проходит по строкам {flat_text(args[0])}"
                if ru and args
                else f"the iterator {fn} walks the rows of "
                f"{flat_text(args[0]) if args else 'a table'}",
            )
    if len(tokens) == 1 and tokens[0].kind is TokenKind.BRACKET and in_iterator:
        _note_once(
            notes,
            f"ссылка на меру {tokens[0].text} внутри итератора выполняет переход контекста"
            if ru
            else f"the measure reference {tokens[0].text} inside an iterator performs a "
            "context transition",
        )
    return _quoted(tokens, ru)


def _quoted(tokens: list[Token], ru: bool) -> str:
    """The expression in backticks when it is short, else a word for it."""
    text = flat_text(tokens[:_QUOTE_TOKENS])
    if len(tokens) <= _QUOTE_TOKENS and len(text) <= 120:
        return f"`{text}`"
    return "выражение" if ru else "an expression"


def _note_once(notes: list[str], text: str) -> None:
    if text not in notes:
        notes.append(text)


def _after_variables(
    tokens: list[Token], lang: str, depth: int, notes: list[str], in_iterator: bool
) -> list[Token]:
    """What a chain of `VAR ... RETURN` blocks returns, each variable described in `notes`.

    A loop, not a call per block: `VAR a = 1 RETURN VAR b = 2 RETURN ...` of any length
    costs no stack.
    """
    ru = lang == "ru"
    start = 0
    for _ in range(len(tokens)):  # each block consumes at least its VAR and RETURN
        if start >= len(tokens) or tokens[start].text.upper() != "VAR":
            break
        ret = next(
            (
                i
                for i in range(start, len(tokens))
                if tokens[i].kind is TokenKind.IDENT and tokens[i].text.upper() == "RETURN"
            ),
            None,
        )
        if ret is None:
            break
        for name, body in _variables(tokens[start:ret]):
            phrase = _describe(body, lang, depth + 1, notes, in_iterator)
            notes.append(
                f"переменная `{name}` = {phrase}" if ru else f"the variable `{name}` is {phrase}"
            )
        start = ret + 1
    return tokens[start:]


def _variables(tokens: list[Token]) -> list[tuple[str, list[Token]]]:
    """(name, body tokens) of each `VAR name = body` at the top level of a VAR block."""
    out: list[tuple[str, list[Token]]] = []
    starts: list[int] = []
    depth = 0
    for i, t in enumerate(tokens):
        if t.kind in (TokenKind.LPAREN, TokenKind.LBRACE):
            depth += 1
        elif t.kind in (TokenKind.RPAREN, TokenKind.RBRACE):
            depth -= 1
        elif depth == 0 and t.kind is TokenKind.IDENT and t.text.upper() == "VAR":
            starts.append(i)
    for k, i in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(tokens)
        if i + 2 < end and tokens[i + 2].text == "=":
            out.append((tokens[i + 1].text, tokens[i + 3 : end]))
    return out


def rules_explanation(lin: MeasureLineage, lang: str) -> str:
    """What the formula computes, its filter context, and where its data comes from and how."""
    ru = lang == "ru"
    toks = code_tokens(tokenize(lin.expression))
    notes: list[str] = []
    what = _describe(toks, lang, notes=notes)
    parts = [
        f"Мера [{lin.measure}] вычисляет {what}." if ru else f"[{lin.measure}] computes {what}."
    ]
    if notes:
        parts.append(("Здесь " if ru else "Here ") + "; ".join(notes) + ".")
    if lin.time_intelligence:
        fns = sorted({t.split("(", 1)[0] for t in lin.time_intelligence})
        parts.append(
            f"Логика времени: {', '.join(fns)}." if ru else f"Time intelligence: {', '.join(fns)}."
        )
    if lin.all_measures:
        names = ", ".join(f"[{m}]" for m in lin.all_measures)
        one = len(lin.all_measures) == 1
        parts.append(
            (f"Она опирается на меру {names}." if one else f"Она опирается на меры {names}.")
            if ru
            else f"It builds on the measure{'' if one else 's'} {names}."
        )
    if lin.model_tables:
        tables = ", ".join(f"'{t}'" for t in lin.model_tables)
        one = len(lin.model_tables) == 1
        parts.append(
            f"Данные берутся из {'таблицы' if one else 'таблиц'} модели {tables}."
            if ru
            else f"Its data comes from the model table{'' if one else 's'} {tables}."
        )
    wh = [o.name for o in lin.sql_objects if o.depth == 0 and o.found]
    if wh:
        one = len(wh) == 1
        parts.append(
            f"Они загружаются из {'объекта' if one else 'объектов'} хранилища {', '.join(wh)}."
            if ru
            else f"They are loaded from the warehouse object{'' if one else 's'} {', '.join(wh)}."
        )
    if lin.procedures:
        procs = ", ".join(object_word(p.name, lang) for p in lin.procedures)  # execution order
        one = len(lin.procedures) == 1
        parts.append(
            (
                f"Загрузку выполняет процедура {procs}."
                if one
                else f"Загрузку выполняют, {_order_words(lin, ru)}, процедуры {procs}."
            )
            if ru
            else (
                f"The load runs the procedure {procs}."
                if one
                else f"The load runs the procedures, {_order_words(lin, ru)}, {procs}."
            )
        )
    computed = [st for st in lin.column_steps if st.computed]
    for st in computed[:12]:
        steps = "".join(
            f"; {_where(d.where, ru)}.{d.column} = `{d.expression}` "
            f"({'строка' if ru else 'line'} {d.line})"
            for d in st.steps
        )
        parts.append(
            f"Столбец {st.target}.{st.column} вычисляется в {st.procedure} (строка "
            f"{st.line}) как `{st.expression}`{steps}."
            if ru
            else f"{st.target}.{st.column} is computed in {st.procedure} (line {st.line}) as "
            f"`{st.expression}`{steps}."
        )
    if len(computed) > 12:
        parts.append(
            f"Ещё {len(computed) - 12} вычислений — в таблице ниже."
            if ru
            else f"{len(computed) - 12} more computations are in the table below."
        )
    return " ".join(parts)


def explanation(
    lin: MeasureLineage, lang: str, explain: Explainer | None, trace: Trace | None = None
) -> str:
    """Rules text, reworded by the LLM slot when one is given and it answers."""
    text = rules_explanation(lin, lang)
    if explain is None:
        return text
    try:
        worded = explain(
            ExplainRequest(
                measure=lin.measure,
                lang=lang,
                expression=lin.expression,
                rules_text=text,
                lineage=lin,
            )
        )
    except Exception as exc:
        if trace is not None:
            trace.suppressed(
                "explanation LLM failed; rules text used", measure=lin.measure, error=str(exc)[:200]
            )
        return text
    if not isinstance(worded, str) or not worded.strip():
        if trace is not None:
            trace.rejected("explanation LLM returned nothing; rules text used", measure=lin.measure)
        return text
    from vitrina.docs.llm import check_wording, dropped_facts

    added = check_wording(worded, "\n".join([text, lin.expression, lin.model_dump_json()]))
    if added:
        if trace is not None:
            trace.rejected(
                "LLM wording names objects or numbers the lineage does not hold; rules text kept",
                measure=lin.measure,
                added=added[:20],
            )
        return text
    dropped = dropped_facts(worded, lin.expression)
    if dropped:
        if trace is not None:
            trace.rejected(
                "LLM wording drops objects or numbers of the formula; rules text kept",
                measure=lin.measure,
                dropped=dropped[:20],
            )
        return text
    if _changes_operators(worded, lin, trace):
        return text
    if trace is not None:
        trace.branch(
            "explanation worded by the LLM (checked against the lineage)", measure=lin.measure
        )
    return worded.strip()


def _changes_operators(worded: str, lin: MeasureLineage, trace: Trace | None) -> bool:
    """A wording that names an operation or comparison the formula does not have (a division
    told as "multiplies", "greater" for "<") is rejected like an invented name."""
    from vitrina.docs.llm import changed_operators

    changed = changed_operators(worded, lin.expression)
    if changed and trace is not None:
        trace.rejected(
            "LLM wording names an operation the formula does not have; rules text kept",
            measure=lin.measure,
            operators=changed,
        )
    return bool(changed)


def _where(where: str, ru: bool) -> str:
    """ "CTE gaps" stays; "derived table a" is "производная таблица a" in Russian."""
    if ru and where.startswith("derived table "):
        return "производная таблица " + where[len("derived table ") :]
    return where


def _order_words(lin: MeasureLineage, ru: bool) -> str:
    """ "in execution order" where a job, an orchestrator or an order file places every step;
    an inferred order, or a partly inferred one, is said to be so."""
    inferred = [p.order_basis in (None, "data") for p in lin.procedures]
    if all(inferred):
        if ru:
            return "в порядке загрузки, выведенном из потоков данных"
        return "in the load order inferred from data flow"
    if any(inferred):
        if ru:
            return (
                "в порядке загрузки (заданном для части шагов, выведенном из потоков данных "
                "для остальных)"
            )
        return "in load order (given for some steps, inferred from data flow for the rest)"
    return "в порядке выполнения" if ru else "in execution order"
