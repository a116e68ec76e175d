"""Properties of the period normaliser, over generated phrases and any `today`.

Every period is a real, ordered range; whole months and quarters are whole; an explicit
date or range written in either language reads back as exactly that date or range; a
period's own label, asked again, means the same period; no text makes it raise.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from hypothesis import assume, given
from hypothesis import strategies as st

from vitrina.language.periods import extract_period

RU_GENITIVE = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
               "сентября", "октября", "ноября", "декабря")  # fmt: skip
EN_MONTHS = tuple(calendar.month_name)[1:]

days = st.dates(min_value=date(1991, 1, 1), max_value=date(2099, 12, 31))
todays = st.dates(min_value=date(1995, 1, 1), max_value=date(2099, 12, 31))


def written(day: date, style: str) -> str:
    """One date as people write it, in one of five styles."""
    return {
        "ru_numeric": f"{day:%d.%m.%Y}",
        "ru_words": f"{day.day} {RU_GENITIVE[day.month - 1]} {day.year}",
        "iso": day.isoformat(),
        "en_words": f"{EN_MONTHS[day.month - 1]} {day.day}, {day.year}",
        "en_day_first": f"{day.day} {EN_MONTHS[day.month - 1]} {day.year}",
    }[style]


styles = st.sampled_from(["ru_numeric", "ru_words", "iso", "en_words", "en_day_first"])
month_phrases = st.sampled_from([
    "в {ru_month} {year}", "за {ru_month} {year} года", "{en_month} {year}", "in {en_month} {year}",
    "{month:02d}.{year}", "{year}-{month:02d}",
])  # fmt: skip
quarter_phrases = st.sampled_from([
    "в {q} квартале {year}", "за {roman} квартал {year} года", "Q{q} {year}", "{year}-Q{q}",
    "in Q{q} {year}",
])  # fmt: skip
RU_NOMINATIVE = ("январь", "февраль", "март", "апрель", "май", "июнь", "июль", "август",
                 "сентябрь", "октябрь", "ноябрь", "декабрь")  # fmt: skip
RU_PREPOSITIONAL = ("январе", "феврале", "марте", "апреле", "мае", "июне", "июле", "августе",
                    "сентябре", "октябре", "ноябре", "декабре")  # fmt: skip
ROMAN = ("I", "II", "III", "IV")
QUARTER_LABEL = re.compile(r"Q[1-4] \d{4}")
MONTH_LABEL = re.compile(rf"(?:{'|'.join(EN_MONTHS)}) \d{{4}}")


def is_month_end(day: date) -> bool:
    return (day + timedelta(days=1)).day == 1


@given(day=days, style=styles, today=todays)
def test_an_explicit_date_reads_back_exactly(day: date, style: str, today: date) -> None:
    period = extract_period(f"Выручка {written(day, style)}", today)
    assert period is not None and (period.start, period.end) == (day, day)
    assert period.corrected is None


@given(a=days, b=days, style=styles, today=todays, lang=st.sampled_from(["ru", "en"]))
def test_an_explicit_range_reads_back_exactly(
    a: date, b: date, style: str, today: date, lang: str
) -> None:
    assume(a < b)
    text = (
        f"с {written(a, style)} по {written(b, style)}"
        if lang == "ru"
        else f"from {written(a, style)} to {written(b, style)}"
    )
    period = extract_period(text, today)
    assert period is not None and (period.start, period.end) == (a, b), text


@given(day=days, phrase=month_phrases, today=todays)
def test_a_named_month_is_the_whole_month(day: date, phrase: str, today: date) -> None:
    names = RU_PREPOSITIONAL if phrase.startswith("в ") else RU_NOMINATIVE
    text = phrase.format(
        ru_month=names[day.month - 1],
        en_month=EN_MONTHS[day.month - 1],
        month=day.month,
        year=day.year,
    )
    period = extract_period(text, today)
    last = calendar.monthrange(day.year, day.month)[1]
    assert period is not None, text
    assert (period.start, period.end) == (day.replace(day=1), day.replace(day=last)), text


@given(year=st.integers(1991, 2099), q=st.integers(1, 4), phrase=quarter_phrases, today=todays)
def test_a_named_quarter_is_the_whole_quarter(year: int, q: int, phrase: str, today: date) -> None:
    text = phrase.format(q=q, roman=ROMAN[q - 1], year=year)
    period = extract_period(text, today)
    assert period is not None, text
    assert period.start == date(year, 3 * q - 2, 1), text
    assert is_month_end(period.end) and period.end.month == 3 * q, text


words = st.sampled_from([
    "выручка", "платежи", "по", "за", "в", "с", "до", "последние", "прошлый", "этот", "месяц",
    "квартал", "год", "года", "неделю", "дней", "3", "30", "2024", "2025", "мая", "май", "марта",
    "I", "Q2", "H1", "первое", "полугодие", "начала", "сегодня", "вчера", "last", "this", "month",
    "quarter", "year", "week", "days", "since", "from", "to", "in", "May", "March", "2023-05",
    "01.03.2025", "–", "-", "31", "30 февраля", "YTD", "MTD", "between", "and", "и",
    "по сегодня", "гг.", "2025 г.", "H2 2024", "first half of", "9 месяцев", "позапрошлый",
    "yesterday", "through", "..", "01.01.2025–15.03.2025", "until today", "ноябрь", "декабре",
])  # fmt: skip


@given(parts=st.lists(words, min_size=1, max_size=8), today=todays)
def test_every_period_found_is_an_ordered_real_range(parts: list[str], today: date) -> None:
    text = " ".join(parts)
    period = extract_period(text, today)
    if period is None:
        return
    assert period.start <= period.end, text
    assert period.span and period.span in text, text
    if QUARTER_LABEL.fullmatch(period.label_en) or MONTH_LABEL.fullmatch(period.label_en):
        months = 3 if period.label_en.startswith("Q") else 1
        assert period.start.day == 1 and (period.start.month - 1) % months == 0, (text, period)
        assert is_month_end(period.end) and period.end.month == period.start.month + months - 1, (
            text
        )
    again = extract_period(period.label_ru, today)
    assert again is not None and (again.start, again.end) == (period.start, period.end), (
        text,
        period.label_ru,
    )
    again = extract_period(period.label_en, today)
    assert again is not None and (again.start, again.end) == (period.start, period.end), (
        text,
        period.label_en,
    )


@given(text=st.text(max_size=200), today=todays)
def test_no_text_makes_it_raise(text: str, today: date) -> None:
    period = extract_period(text, today)
    assert period is None or period.start <= period.end
