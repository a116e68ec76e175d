"""Stop words: the one source for every matcher that drops words carrying no meaning.

One vocabulary in layers, because the matchers drop different words on purpose: retrieval
keeps "год" and "сумма" (they name columns), the question reader drops them (the period and
metric rules read them), and the analyst's search also drops the words of a search request
("найди", "где").

* ``CONNECTIVES``: the prepositions and conjunctions that join the words of a name.
* ``COMMON``: words no matcher counts (connectives, question and request words).
* ``INDEX_STOPWORDS``: what catalog retrieval drops from documents and questions.
* ``QUESTION_STOPWORDS``: words a question may contain without being "unexplained".
* ``SEARCH_NOISE``: what the metadata analyst drops from a search request.

>>> "сколько" in COMMON, "год" in QUESTION_STOPWORDS, "год" in INDEX_STOPWORDS
(True, True, False)
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


CONNECTIVES = _words("""
в во для до за и из к на от по с со a and by for in of on the
""")

_SHARED = _words("""
а был была были было все всех дай же или как какая какие какое какой ли мне не ни о об
покажи при сколько у что это all an are as at be from give how is list many me much or per
show that this to was were what which with
""")
COMMON = CONNECTIVES | _SHARED

INDEX_STOPWORDS = COMMON | _words("""
без бы его ее из-за их каждая каждый ко но один одна показать строк строка так там то тут
each into it's last one row rows table without
""")

QUESTION_STOPWORDS = COMMON | _words("""
будет весь всего вся выведи выведите год года году дайте есть итого каким каких каков какова
каком количество которая которые который которым которых кто месяц надо нам неделю нужно
общая общее общий пожалуйста покажите посчитай посчитайте прошли прошло составил составила
стало сумма те тех через число эта эти этот been did do does got its made our please their
there these those total went who whose year
пришло пришли пришлась пришлось пришелся стал стала стали составляет составляют составили
составило насчитывается имеется имеются было нас наш наши всего-навсего вообще сейчас
have has had came come happened occurred we us overall currently now
""")

SEARCH_NOISE = CONNECTIVES | _words("""
все где данные данных есть какая какие какой которые лежат лежит метаданные мне найди найти
о об отчет отчёт покажи построй про регистр регистры сформируй таблиц таблица таблицы
хранится хранятся about are build data find hold holds is kept me metadata report show
stored table tables there what where which
""")
