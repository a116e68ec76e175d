"""Russian morphology (pymorphy3): words far from their stem match through their lemma, and
a refusal names a word in its dictionary form, not as a bare stem."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from vitrina.language.morph import dictionary_form, lemma
from vitrina.language.text import stem_matches


@pytest.mark.parametrize(
    ("stem", "word", "expected"),
    [
        ("тип", "типам", True),  # ending of 2 letters: too long for a 3-letter stem, the lemma
        ("тип", "типами", True),
        ("кошел", "кошельков", True),  # the plain rule
        ("тип", "тихий", False),
        ("тип", "типография", False),  # lemma "типография": still too long an ending
        ("wallet", "wallets", True),
    ],
)
def test_stem_matches_through_the_lemma(stem: str, word: str, expected: bool) -> None:
    assert stem_matches(stem, word) is expected


def test_lemmas_and_dictionary_forms() -> None:
    assert lemma("ипотеку") == "ипотека" and lemma("платежам") == "платеж"
    assert dictionary_form("зарплатам") == "зарплата"
    assert lemma("revenue") == "revenue"


def test_a_refusal_names_the_word_in_its_dictionary_form(demo_db: Path) -> None:
    from vitrina.ask import AskService
    from vitrina.config import load_settings

    service = AskService(
        load_settings(db_url=f"duckdb:///{demo_db}"),
        today=date(2026, 11, 30),
        write_files=False,
        use_llm=False,
    )
    try:
        ru = service.ask("Сколько людей оформили ипотеку в 2025 году?")
        en = service.ask("How many mortgages were issued in 2025?")
    finally:
        service.close()
    assert ru.status == "refused" and "«ипотека»" in ru.answer, ru.answer
    assert en.status == "refused" and '"mortgages"' in en.answer, en.answer
