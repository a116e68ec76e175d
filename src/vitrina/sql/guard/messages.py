"""Bilingual message templates, one pair per rule (and per variant of a rule).

Every message says what was wrong and what to do, because its reader is often the
generator that wrote the SQL and has to repair it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlglot import exp

from vitrina.sql.guard.models import GuardViolation

FRAGMENT_LIMIT = 200

# key -> (English, Russian); the key before a dot is the rule name.
MESSAGES: dict[str, tuple[str, str]] = {
    "parse_error": (
        "Could not parse the SQL as {dialect} {where_en}: {description}. "
        "Rewrite it as one valid {dialect} SELECT statement.",
        "Не удалось разобрать SQL как {dialect} {where_ru}: {description}. "
        "Перепишите его как одну корректную инструкцию SELECT для {dialect}.",
    ),
    "too_complex": (
        "The query is too large or too deeply nested to check safely ({what_en}: {found}, "
        "the limit is {limit}). "
        "Write a simpler query: fewer nested parentheses, calls or subqueries.",
        "Запрос слишком большой или слишком глубоко вложен для проверки ({what_ru}: {found}, "
        "предел: {limit}). "
        "Напишите запрос проще: меньше вложенных скобок, вызовов или подзапросов.",
    ),
    "single_statement": (
        "Expected exactly one SQL statement, found {count}. "
        "Send a single SELECT query with nothing after the semicolon.",
        "Ожидалась ровно одна SQL-инструкция, найдено: {count}. "
        "Отправьте один запрос SELECT, без других инструкций после точки с запятой.",
    ),
    "select_only": (
        "Only read-only SELECT queries are allowed, but this statement is {kind}. "
        "Rewrite it as a SELECT (or WITH ... SELECT, or a UNION of SELECTs) that only reads data.",
        "Разрешены только читающие запросы SELECT, а эта инструкция — {kind}. "
        "Перепишите её как SELECT (или WITH ... SELECT, или UNION из SELECT), который "
        "только читает данные.",
    ),
    "nested_statement": (
        "A {kind} statement is nested inside the query (for example in a WITH clause). "
        "Remove it: the query may only read data.",
        "Внутри запроса (например, в WITH) вложена инструкция {kind}. "
        "Уберите её: запрос может только читать данные.",
    ),
    "select_into": (
        "SELECT ... INTO writes the result into a new table or variable. "
        "Remove the INTO clause and return the rows instead.",
        "SELECT ... INTO записывает результат в новую таблицу или переменную. "
        "Уберите INTO и просто верните строки.",
    ),
    "query_options": (
        "The clause {fragment} is not allowed: a query may not change its settings or "
        "output format. Remove SETTINGS / FORMAT.",
        "Предложение {fragment} запрещено: запрос не может менять свои настройки или формат "
        "вывода. Уберите SETTINGS / FORMAT.",
    ),
    "row_locks": (
        "The row-locking clause {fragment} is not allowed in a read-only query. "
        "Remove FOR UPDATE / FOR SHARE.",
        "Блокировка строк {fragment} запрещена в читающем запросе. Уберите FOR UPDATE / FOR SHARE.",
    ),
    "dangerous_functions": (
        "Function {name}() is not allowed: it can read files, reach the network, wait, "
        "run other SQL or change server state. Use warehouse tables and ordinary SQL "
        "functions only.",
        "Функция {name}() запрещена: она может читать файлы, обращаться к сети, ждать, "
        "выполнять другой SQL или менять состояние сервера. Используйте только таблицы хранилища "
        "и обычные функции SQL.",
    ),
    "allowed_functions": (
        "Function {name}() is not on the list of allowed functions for this warehouse. "
        "Use ordinary SQL functions (arithmetic, text, dates, aggregates, window functions) "
        "over the warehouse tables.",
        "Функции {name}() нет в списке разрешённых для этого хранилища. Используйте обычные "
        "функции SQL (арифметика, строки, даты, агрегаты, оконные функции) над таблицами "
        "хранилища.",
    ),
    "allowed_functions.qualified": (
        "Function {name}() is called with a schema ({fragment}). Call functions by their "
        "bare name.",
        "Функция {name}() вызвана со схемой ({fragment}). Вызывайте функции без указания схемы.",
    ),
    "table_functions": (
        "Table function {name}() is not allowed as a row source. Select from warehouse tables "
        "(or a CTE or subquery over them).",
        "Табличная функция {name}() не может быть источником строк. Выбирайте данные из таблиц "
        "хранилища (или из CTE и подзапросов над ними).",
    ),
    "relations": (
        "{fragment} cannot be a row source. FROM, JOIN and LATERAL may name warehouse tables, "
        "CTEs of the same query, subqueries and VALUES lists only.",
        "{fragment} не может быть источником строк. В FROM, JOIN и LATERAL допустимы "
        "только таблицы хранилища, CTE этого же запроса, подзапросы и списки VALUES.",
    ),
    "dangerous_casts": (
        "The cast to {fragment} is not allowed: it looks up server objects or parses XML. "
        "Cast to ordinary types (numbers, text, dates) only.",
        "Приведение к {fragment} запрещено: оно ищет объекты сервера или разбирает XML. "
        "Приводите только к обычным типам (числа, строки, даты).",
    ),
    "parameters": (
        "Parameter or session variable {fragment} is not allowed. Write the value into the query.",
        "Параметр или переменная сеанса {fragment} запрещены. Впишите значение в запрос.",
    ),
    "recursive_cte": (
        "WITH RECURSIVE is not allowed: a recursive query can run without bound. "
        "Rewrite it with joins or window functions over the warehouse tables.",
        "WITH RECURSIVE запрещён: рекурсивный запрос может выполняться без ограничения. "
        "Перепишите его через соединения или оконные функции над таблицами хранилища.",
    ),
    "qualify_failed": (
        "The query could not be analysed ({error}), so it is refused rather than run unchecked. "
        "Simplify it: qualify every column with its table alias.",
        "Запрос не удалось разобрать до столбцов ({error}), поэтому он отклонён, а не выполнен "
        "без проверки. Упростите его: укажите у каждого столбца псевдоним таблицы.",
    ),
    "file_references": (
        "{fragment} looks like a file path or URL, not a table. "
        "Query warehouse tables only: reading files is not allowed.",
        "{fragment} похоже на путь к файлу или URL, а не на таблицу. "
        "Запрашивайте только таблицы хранилища: чтение файлов запрещено.",
    ),
    "system_catalogs": (
        "System catalog object {fragment} is not allowed. "
        "Use the tables of the data catalog; metadata comes from Vitrina's catalog, "
        "not from the database's system tables.",
        "Системный объект {fragment} запрещён. "
        "Используйте таблицы каталога данных; метаданные берутся из каталога Витрины, "
        "а не из системных таблиц базы.",
    ),
    "allowed_tables": (
        "Table {fragment} is not among the allowed tables. Use one of: {known}.",
        "Таблицы {fragment} нет среди разрешённых. Используйте одну из: {known}.",
    ),
    "allowed_tables.ambiguous": (
        "Table name {fragment} is ambiguous: it matches {candidates}. Qualify it with its schema.",
        "Имя таблицы {fragment} неоднозначно: подходят {candidates}. Укажите схему.",
    ),
    "allowed_columns": (
        "Column {column} does not exist in table {table}. Use one of its columns: {known}.",
        "В таблице {table} нет столбца {column}. Используйте один из её столбцов: {known}.",
    ),
    "allowed_columns.unresolved": (
        "Column {column} is not found in any table of the query ({tables}). "
        "Check the name against the catalog.",
        "Столбец {column} не найден ни в одной таблице запроса ({tables}). "
        "Сверьте имя с каталогом.",
    ),
    "star_projections": (
        "{fragment} cannot be expanded to the columns the catalog allows in {table}: "
        "{reason_en}. List the columns you need instead of the star.",
        "{fragment} нельзя развернуть в разрешённые каталогом столбцы {table}: "
        "{reason_ru}. Перечислите нужные столбцы вместо звёздочки.",
    ),
    "whole_rows": (
        "{fragment} uses the table {table} as a value: that is its whole row, every column, "
        "the ones the catalog does not allow too. Name the columns you need ({table}.column).",
        "{fragment} использует таблицу {table} как значение: это вся её строка, все столбцы, "
        "в том числе не разрешённые каталогом. Назовите нужные столбцы ({table}.столбец).",
    ),
    "whole_rows.star": (
        "{fragment}: a star ({table}.* or *) may only stand alone in a SELECT list, or in "
        "COUNT(*); anywhere else it reads whole rows. Name the columns you need.",
        "{fragment}: звёздочка ({table}.* или *) допустима только отдельным элементом списка "
        "SELECT или в COUNT(*); в других местах она читает строки целиком. Назовите нужные "
        "столбцы.",
    ),
    "whole_rows.columns": (
        "{fragment} picks columns by a pattern, including columns the catalog does not allow. "
        "Name the columns you need.",
        "{fragment} выбирает столбцы по шаблону, в том числе не разрешённые каталогом. "
        "Назовите нужные столбцы.",
    ),
    "whole_rows.positional": (
        "{fragment} reads a column by its place in the table, whichever column that is. "
        "Name the column instead.",
        "{fragment} читает столбец по его номеру в таблице, какой бы это ни был столбец. "
        "Назовите столбец по имени.",
    ),
    "whole_rows.qualifier": (
        "{fragment}: {qualifier} is not a table or alias in the FROM of this query, so the name "
        "may read a whole row or a field the catalog does not list. Qualify columns with the "
        "alias of a table of the query.",
        "{fragment}: {qualifier} не является таблицей или псевдонимом из FROM этого запроса, и "
        "такое имя может прочитать строку целиком или поле, которого нет в каталоге. Указывайте "
        "перед столбцом псевдоним таблицы запроса.",
    ),
    "whole_rows.pivot": (
        "{fragment}: PIVOT and UNPIVOT keep every column of {table} they do not name, "
        "including columns the catalog does not allow (and PostgreSQL has neither). "
        "Aggregate with GROUP BY and CASE (or FILTER) over named columns instead.",
        "{fragment}: PIVOT и UNPIVOT сохраняют все не названные в них столбцы {table}, в том "
        "числе не разрешённые каталогом (а в PostgreSQL их нет вовсе). Агрегируйте через "
        "GROUP BY и CASE (или FILTER) по названным столбцам.",
    ),
    "whole_rows.natural": (
        "{fragment} joins on every column with the same name in both tables, including columns "
        "of {table} the catalog does not allow. Use JOIN ... ON with the columns named.",
        "{fragment} соединяет по всем одноимённым столбцам, в том числе по не разрешённым "
        "каталогом столбцам {table}. Используйте JOIN ... ON с названными столбцами.",
    ),
    "whole_rows.column_aliases": (
        "{fragment} renames the columns of {table} by their place in the table, whichever "
        "columns those are. Rename columns in the SELECT list instead (column AS name).",
        "{fragment} переименовывает столбцы {table} по их номерам в таблице, какие бы это ни "
        "были столбцы. Переименовывайте столбцы в списке SELECT (столбец AS имя).",
    ),
    "alias_references": (
        "{column} is an alias of the SELECT list, but here the database reads a column of that "
        "name first, and {table} may have one the catalog does not allow. Repeat the "
        "expression instead of the alias.",
        "{column} — псевдоним из списка SELECT, но здесь база сначала ищет столбец с таким "
        "именем, а в {table} может быть столбец, не разрешённый каталогом. Повторите выражение "
        "вместо псевдонима.",
    ),
}


def violation(key: str, fragment: str | None = None, **params: Any) -> GuardViolation:
    """Build a violation from the templates under ``key``; ``fragment`` is the offending SQL."""
    if fragment is not None and len(fragment) > FRAGMENT_LIMIT:
        fragment = fragment[: FRAGMENT_LIMIT - 3] + "..."
    en, ru = MESSAGES[key]
    values = {"fragment": fragment, **params}
    return GuardViolation(
        rule=key.split(".")[0],
        message_en=en.format(**values),
        message_ru=ru.format(**values),
        fragment=fragment,
    )


def listing(names: Iterable[str], limit: int = 12) -> str:
    """A short, sorted, comma-separated list for a message ("a, b, c and 5 more")."""
    ordered = sorted(names)
    shown = ", ".join(ordered[:limit])
    return f"{shown} (+{len(ordered) - limit})" if len(ordered) > limit else shown or "-"


def sql_fragment(node: exp.Expr, dialect: str) -> str:
    """The offending node as SQL, function names in their written case, no comments."""
    return node.sql(dialect=dialect, normalize_functions=False, comments=False)
