"""The catalog of the docs job's messages in English and Russian, and their translation.

Lineage, sources, the SQL index and the run write their warnings in English; a document,
the manual and the console under `--lang ru` show them in Russian. Each entry is an
English template (`{}` a value kept as it is, `{*}` a message translated in turn) and its
Russian text (`{0}`, `{1}`, ... the values in the English order). A message that matches
no entry is shown as it is (never dropped); `english_fragments` lists the fixed English
words of every entry, so a test can check a Russian run shows none of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LOADED_FROM_OUTSIDE = "an ETL package, a file or another database?"

CATALOG: list[tuple[str, str]] = [
    ("unresolved reference {} in [{}]", "неразрешённая ссылка {0} в [{1}]"),
    (
        "DAX syntax error in [{}] at line {}, column {}: {*}",
        "синтаксическая ошибка DAX в [{0}], строка {1}, столбец {2}: {3}",
    ),
    ("{} is never closed: expected {} before the end", "{0} не закрыта: ожидалась {1} до конца"),
    ("unexpected {} after a complete expression", "лишнее {0} после законченного выражения"),
    ("unexpected {}: expected {} to close {}", "неожиданное {0}: ожидалась {1}, чтобы закрыть {2}"),
    ("unexpected {}: expected ',' or ')'", "неожиданное {0}: ожидалась ',' или ')'"),
    (
        "unexpected {}: expected a value, a reference or a function call",
        "неожиданное {0}: ожидалось значение, ссылка или вызов функции",
    ),
    ("unexpected character {}", "недопустимый символ {0}"),
    ("expected ',' or ')' in the arguments of {}", "ожидалась ',' или ')' в аргументах {0}"),
    ("expected an expression after {}", "ожидалось выражение после {0}"),
    ("expected an expression before the end", "ожидалось выражение до конца формулы"),
    ("expected a variable name after VAR", "ожидалось имя переменной после VAR"),
    ("expected '=' after VAR {}", "ожидалось '=' после VAR {0}"),
    ("expected RETURN after the VAR definitions", "ожидалось RETURN после определений VAR"),
    ("string is never closed: expected '\"'", "строка не закрыта: ожидалась '\"'"),
    ('quoted table name is never closed: expected "\'"', 'имя таблицы не закрыто: ожидалась "\'"'),
    ("comment is never closed: expected '*/'", "комментарий не закрыт: ожидалось '*/'"),
    ("expression too complex to check", "выражение слишком сложно для проверки"),
    (
        "unsupported source {}: lineage stops here",
        "неподдерживаемый источник {0}: происхождение дальше не прослеживается",
    ),
    (
        "parsed partially (token scan); its reads/writes may be incomplete",
        "разобрано частично (сканированием токенов); списки чтения и записи могут быть неполными",
    ),
    (
        "builds dynamic SQL; objects named only in that SQL are not traced",
        "строит динамический SQL; объекты, названные только в нём, не прослежены",
    ),
    (
        "dynamic SQL at line(s) {}: the objects it touches are known only at run time; {} "
        "SQL-like string literal(s) were scanned for names",
        "динамический SQL (стр. {0}): объекты, с которыми он работает, известны только при "
        "выполнении; строковых литералов, похожих на SQL, просмотрено: {1}",
    ),
    (
        "statement(s) at line(s) {} were read by a token scan: reads and writes may be incomplete",
        "инструкции (стр. {0}) прочитаны сканированием токенов: чтение и запись могут быть "
        "неполными",
    ),
    (
        "temp table(s) {} are read but not filled here (filled by a caller?)",
        "временные таблицы {0} читаются, но не заполняются здесь (их заполняет вызывающая "
        "процедура?)",
    ),
    (
        "temp table {} read by {} is filled by no procedure it calls or is called by",
        "временную таблицу {0}, которую читает {1}, не заполняет ни одна процедура, которую "
        "та вызывает или которая вызывает её",
    ),
    (
        "table variable(s) {} are read but not filled here (table-valued parameters: their "
        "rows come from the caller)",
        "табличные переменные {0} читаются, но не заполняются здесь (табличные параметры: "
        "строки приходят от вызывающей процедуры)",
    ),
    (
        "no direct reads or writes: it calls {}; its data lineage is that of the called modules",
        "нет прямого чтения и записи: вызывает {0}; происхождение данных — как у вызываемых "
        "модулей",
    ),
    (
        "no reads or writes found: its statements are dynamic SQL built at run time",
        "чтение и запись не найдены: инструкции — динамический SQL, собираемый при выполнении",
    ),
    (
        "no reads or writes of user tables: it touches only temp tables, table variables or "
        "catalog views ({})",
        "нет чтения и записи пользовательских таблиц: работает только с временными таблицами, "
        "табличными переменными или системными представлениями ({0})",
    ),
    (
        "no reads or writes: its body references no table (it works on parameters and "
        "variables only)",
        "нет чтения и записи: тело не ссылается ни на одну таблицу (работает только с "
        "параметрами и переменными)",
    ),
    (
        "view reads no table or view (constants or functions only)",
        "представление не читает ни таблиц, ни представлений (только константы или функции)",
    ),
    ("no object name after {}", "нет имени объекта после {0}"),
    ("no AS before the body of procedure {}", "нет AS перед телом процедуры {0}"),
    ("no AS before the body of function {}", "нет AS перед телом функции {0}"),
    ("no AS before the body of view {}", "нет AS перед телом представления {0}"),
    ("no AS before the body of trigger {}", "нет AS перед телом триггера {0}"),
    ("no AS before the body of {} {}", "нет AS перед телом {0} {1}"),
    ("definition has no body", "у определения нет тела"),
    (
        "warehouse object {} was not found in the SQL folder",
        "объект хранилища {0} не найден в папке SQL",
    ),
    (
        "no SQL folder given: lineage stops at the partition sources",
        "папка SQL не задана: происхождение прослежено только до источников секций",
    ),
    (
        "SQL lineage cut at depth {} (at {})",
        "происхождение в SQL обрезано на глубине {0} (на объекте {1})",
    ),
    (
        "measure dependencies deeper than {} levels were not followed",
        "зависимости мер глубже {0} уровней не прослежены",
    ),
    (
        "the measure reads no model column or table (a constant or a parameter)",
        "мера не читает ни столбцов, ни таблиц модели (константа или параметр)",
    ),
    ("no data source recognised in the M expression", "в выражении M не распознан источник данных"),
    (
        "the native query text is computed; its tables are unknown",
        "текст нативного запроса вычисляется; его таблицы неизвестны",
    ),
    (
        "partition query did not parse ({}); tables found by a token scan",
        "запрос секции не разобран ({0}); таблицы найдены сканированием токенов",
    ),
    ("query partition has no query text", "у секции-запроса нет текста запроса"),
    ("M partition has no expression", "у секции M нет выражения"),
    ("partition kind {} is not traced", "секции вида {0} не прослеживаются"),
    ("table has no partitions", "у таблицы нет секций"),
    (
        "{} is defined again: {} and {}; the later one is kept",
        "{0} определён повторно: {1} и {2}; оставлено последнее определение",
    ),
    (
        "{} is read but nothing in the SQL folder writes it (loaded from outside: "
        + _LOADED_FROM_OUTSIDE
        + ")",
        "{0} читается, но ничто в папке SQL его не пишет (загружается извне: пакетом ETL, "
        "из файла или из другой базы?)",
    ),
    (
        "{} is read but the SQL folder only updates or deletes its rows ({}); its rows are "
        "loaded from outside: " + _LOADED_FROM_OUTSIDE,
        "{0} читается, но в папке SQL его строки только изменяются или удаляются ({1}); "
        "строки загружаются извне: пакетом ETL, из файла или из другой базы?",
    ),
    (
        "{}:{}: procedure {} failed to parse ({*}); it is not listed as a loader: fix the file "
        "and run again",
        "{0}:{1}: процедура {2} не разобрана ({3}); она не указана среди загружающих: "
        "исправьте файл и запустите снова",
    ),
    (
        "procedure {} (writes {}) failed to parse at {} ({*}): it is not listed as a loader",
        "процедура {0} (пишет {1}) не разобрана, {2} ({3}): она не указана среди загружающих",
    ),
    ("path not found", "путь не найден"),
    ("cannot read: {}", "не удаётся прочитать: {0}"),
    (
        "binary data, not SQL text ({} control or undecodable characters in the first {})",
        "двоичные данные, а не текст SQL ({0} управляющих или нечитаемых символов из первых {1})",
    ),
    (
        "no SQL statement: the file starts with {} (a text file renamed .sql?)",
        "нет инструкций SQL: файл начинается с {0} (текстовый файл, переименованный в .sql?)",
    ),
    (
        "unterminated /* comment runs to the end of the file",
        "незакрытый комментарий /* идёт до конца файла",
    ),
    (
        "unterminated string literal runs to the end of the file",
        "незакрытая строка идёт до конца файла",
    ),
    (
        "unterminated {}name{} runs to the end of the file",
        "незакрытое имя {0}…{1} идёт до конца файла",
    ),
    (
        "the model has no measures: there is nothing to document (it has no tables either)",
        "в модели нет мер: документировать нечего (таблиц тоже нет)",
    ),
    (
        "the model has no measures: there is nothing to document",
        "в модели нет мер: документировать нечего",
    ),
    # node labels of the diagram
    ("{} (no DDL in SQL folder)", "{0} (нет DDL в папке SQL)"),
    ("{} (not in SQL folder)", "{0} (нет в папке SQL)"),
    ("{} (temp table)", "{0} (временная таблица)"),
    # miss details
    ("not in the model; did you mean {}?", "нет в модели; возможно, имелось в виду {0}?"),
    ("not in the model", "нет в модели"),
    ("over the {} s limit", "превышен лимит {0} с"),
    ("not reached", "не обработана: запуск прервался раньше"),
    ("the agent ran over the {} s limit", "агент превысил лимит {0} с"),
    ("the agent exited with code {}: {}", "агент завершился с кодом {0}: {1}"),
    ("could not start {}", "не удалось запустить {0}"),
    ("the agent wrote no document", "агент не написал документ"),
    (
        "the agent's document is {} bytes: not a measure document",
        "документ агента — {0} байт: это не документ меры",
    ),
    ("the document does not name the measure [{}]", "документ не называет меру [{0}]"),
    (
        "the agent's text names objects or numbers that the model, the SQL and the lineage do "
        "not hold: {}; the rules document is kept",
        "текст агента называет объекты или числа, которых нет в модели, SQL и происхождении: "
        "{0}; оставлен документ по правилам",
    ),
]


@dataclass(frozen=True)
class _Entry:
    pattern: re.Pattern[str]
    russian: str
    nested: tuple[int, ...]  # groups that are messages themselves


def _compile(english: str, russian: str) -> _Entry:
    parts = re.split(r"(\{\*?\})", english)
    regex, nested, group = [], [], 0
    for part in parts:
        if part in ("{}", "{*}"):
            regex.append("(.+?)")
            if part == "{*}":
                nested.append(group)
            group += 1
        else:
            regex.append(re.escape(part))
    return _Entry(re.compile("^" + "".join(regex) + "$", re.DOTALL), russian, tuple(nested))


_ENTRIES = [_compile(en, ru) for en, ru in CATALOG]
_WHERE = re.compile(r"^(.*\S) (\([^()]+:\d+\))$")  # a trailing " (file:line)"


def translate_warning(text: str, lang: str) -> str:
    """A message in the document's language; unknown texts stay as they are (never dropped).

    >>> translate_warning("SQL lineage cut at depth 8 (at dw.T)", "ru")
    'происхождение в SQL обрезано на глубине 8 (на объекте dw.T)'
    """
    if lang != "ru":
        return text
    return _translate(text, 0)


def _translate(text: str, depth: int) -> str:
    if depth > 4:  # a message nests another at most a few times
        return text
    for entry in _ENTRIES:
        m = entry.pattern.match(text)
        if m is not None:
            values = [
                _translate(v, depth + 1) if k in entry.nested else v
                for k, v in enumerate(m.groups())
            ]
            return entry.russian.format(*values)
    where = _WHERE.match(text)
    if where is not None:
        inner = _translate(where.group(1), depth + 1)
        if inner != where.group(1):
            return f"{inner} {where.group(2)}"
    head, sep, rest = text.partition(": ")
    if sep and rest:
        inner = _translate(rest, depth + 1)
        if inner != rest:
            return f"{head}: {inner}"
    return text


def english_fragments(min_length: int = 12) -> list[str]:
    """The fixed English words of every catalog entry (pieces between the values)."""
    out: list[str] = []
    for english, _ in CATALOG:
        for piece in re.split(r"\{\*?\}", english):
            piece = piece.strip(" :;,()[]'")
            if len(piece) >= min_length and piece not in out:
                out.append(piece)
    return out
