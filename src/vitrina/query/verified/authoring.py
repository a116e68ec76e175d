"""Making an entry: from a person's SQL (`vitrina verified add`) or from an answer judged
right (a plan: `params_of_plan` lifts its period, filter values and top N by code).

Whatever the source, the entry's SQL is guarded, compiled and run with its first
wording's values before it is kept (a reviewer sees the SQL and the row count), and every
wording must give exactly the parameters the SQL takes, so it can be matched again.
"""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING

from vitrina.language.detect import detect_lang
from vitrina.language.periods import Period
from vitrina.language.text import tokenize
from vitrina.query.run import Checked, RunOptions, run_checked
from vitrina.query.verified.check import fingerprint, guard_entry
from vitrina.query.verified.match import QuestionParams, ValueHit, bind_question, read_params
from vitrina.query.verified.model import Entry, ParamError
from vitrina.query.verified.params import bind, lift
from vitrina.query.verified.texts import Bilingual

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.query.plan import QueryPlan
    from vitrina.query.verified.store import Bank
    from vitrina.warehouse import Warehouse


class AddError(Bilingual):
    """Why an entry was not kept, naming the wording or the check that refused it."""


_CYRILLIC = dict(
    zip(
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
        [
            "a",
            "b",
            "v",
            "g",
            "d",
            "e",
            "e",
            "zh",
            "z",
            "i",
            "i",
            "k",
            "l",
            "m",
            "n",
            "o",
            "p",
            "r",
            "s",
            "t",
            "u",
            "f",
            "kh",
            "ts",
            "ch",
            "sh",
            "shch",
            "",
            "y",
            "",
            "e",
            "iu",
            "ia",
        ],
        strict=True,
    )
)


def slug(text: str) -> str:
    """A file-safe entry id from a wording (Cyrillic transliterated: ids are [a-z0-9_-])."""
    latin = "".join(_CYRILLIC.get(ch, ch) for ch in text.lower())
    words = re.findall(r"[a-z0-9]+", latin)[:6]
    return "-".join(words)[:60] or "entry"


def params_of_plan(plan: QueryPlan, question: str) -> QuestionParams:
    """The parameters a rules answer used, from its plan (no re-reading of the question):
    the period, each filter's values, the top N."""
    periods = []
    if plan.period is not None and not plan.period.open_start:
        p = plan.period
        periods.append(
            Period(start=p.start, end=p.end, label_ru=p.label_ru, label_en=p.label_en, span="")
        )
    values = [
        ValueHit(v, f"{f.table}.{f.column}", (f"{f.table}.{f.column}",), frozenset())
        for f in plan.filters
        for v in f.values
    ]
    return QuestionParams(tokenize(question), periods, values, plan.limit)


def add_entry(
    bank: Bank,
    catalog: Catalog,
    warehouse: Warehouse,
    *,
    wordings: list[str],
    sql: str,
    by: str,
    entry_id: str | None,
    today: date,
    row_cap: int,
    source: str = "cli",
) -> tuple[Entry, Checked]:
    """Check and keep a verified entry (see the module docstring); AddError when refused."""
    wordings = [w.strip() for w in wordings if w.strip()]
    if not wordings or not by.strip():
        raise AddError(
            "an entry needs at least one wording (--question) and a verifier (--by)",
            "записи нужны хотя бы одна формулировка (--question) и проверивший (--by)",
        )
    first = read_params(wordings[0], catalog, today)
    if "{{" not in sql:
        try:
            sql = lift(sql, first, warehouse.dialect).sql
        except ParamError as exc:
            raise AddError(exc.message_en, exc.message_ru) from exc
    en = [w for w in wordings if detect_lang(w) == "en"]
    ru = [w for w in wordings if detect_lang(w) == "ru"]
    try:
        entry = Entry(
            id=entry_id or slug(wordings[0]),
            wordings_en=en,
            wordings_ru=ru,
            sql=sql,
            verified_by=by.strip(),
            verified_at=today,
            status="verified",
            source=source,
        )
    except ValueError as exc:
        raise AddError(f"entry not valid: {exc}", f"запись некорректна: {exc}") from exc
    guarded = guard_entry(entry, catalog, warehouse.dialect, row_cap)
    if guarded.reason:
        raise AddError(
            f"refused by the guard: {guarded.reason}",
            f"отклонено проверкой безопасности SQL: {guarded.reason}",
        )
    for wording in wordings:
        if bind_question(entry, read_params(wording, catalog, today)) is None:
            names = ", ".join(p.name for p in entry.params) or "none"
            raise AddError(
                f"wording {wording!r} does not give the SQL's parameters ({names}): name the "
                "same number of periods, a value for each value(...) and a top N for top_n",
                f"формулировка {wording!r} не задаёт параметры SQL ({names}): назовите столько "
                "же периодов, значение для каждого value(...) и топ N для top_n",
            )
    values = bind_question(entry, first)
    assert values is not None
    checked = run_checked(
        bind(entry.sql, values[0], warehouse.dialect),
        catalog,
        warehouse,
        RunOptions(row_cap=row_cap),
    )
    if not checked.ok:
        raise AddError(
            f"the query failed at {checked.stage}: {checked.error}",
            f"запрос не прошёл этап {checked.stage}: {checked.error}",
        )
    fp = fingerprint(guarded.sql, guarded.tables, catalog, warehouse.dialect)
    entry = entry.model_copy(update={"fingerprint": fp})
    bank.save(entry)
    return entry, checked
