"""What `catalog init` makes of a column and a table, by name and by the values it saw.

Rules, not guesses a user has to undo: a date of birth, hire or validity never dates a
count; postal codes, phone numbers and other identifiers are never breakdowns (by name, or
by values that are codes: digits with at most two letters in a row); the one text column of
a lookup table (the label of a genre, a region, a shipper) is its breakdown.
"""

from __future__ import annotations

import re

from vitrina.language.names import split_name, stem
from vitrina.warehouse.introspect import ColumnInfo, TableInfo

# a date that is not when the thing a row records happened: no count is dated by it
NOT_EVENT_DATE = ("birth", "dob", "hire", "hired", "valid", "effective", "expir", "updat",
                  "modif", "рожд", "найм", "прием", "действ", "изменен", "обновлен")  # fmt: skip
# identifiers and contact details: never a breakdown, never summed
IDENTIFIER_WORDS = ("postal", "postcode", "zip", "phone", "telephone", "fax", "extension",
                    "mobile", "email", "mail", "url", "website", "homepage", "barcode", "isbn",
                    "uuid", "guid", "iban", "passport", "индекс", "телефон", "факс", "почт",
                    "паспорт")  # fmt: skip
IDENTIFIER_TOKENS = ("ext", "sku", "ean", "inn", "инн", "снилс")
# last word: "invoice number" (not "number of"); "reports to", "created by" (another row)
NUMBER_TOKENS = ("no", "num", "number", "номер", "to", "by")
FREE_TEXT_WORDS = ("comment", "description", "note", "remark", "address", "адрес", "коммент")
FREE_TEXT_MEAN_LENGTH = 30  # values this long on average are prose, not categories
_CODE_VALUE = re.compile(r"^(?=.*\d)(?!.*[^\W\d_]{3})[\w\s()+\-./#]{4,}$")


def words(name: str) -> str:
    """Column and table names as words: 'BillingPostalCode' -> 'billing postal code'."""
    return " ".join(re.findall(r"[^\W_]+", split_name(name)))


def noun_stem(name: str) -> str:
    """A name as synonym stems that match its singular and plural: 'categories' ->
    'categor', 'order_details' -> 'order detail'."""
    out = []
    for word in words(name).split():
        word = word[:-3] if word.endswith("ies") and len(word) > 5 else stem(word)
        out.append(word)
    return " ".join(out)


def _tokens(column: ColumnInfo) -> list[str]:
    return words(column.name).split()


def is_event_date(column: ColumnInfo) -> bool:
    """A date a period of counts and sums can filter: not a birth, hire or validity date."""
    joined = "".join(_tokens(column))
    return column.is_date and not any(w in joined for w in NOT_EVENT_DATE)


def is_identifier(column: ColumnInfo) -> bool:
    """Postal codes, phones, e-mails, numbers that name a row: by name or by their values."""
    tokens = _tokens(column)
    joined = "".join(tokens)
    if any(w in joined for w in IDENTIFIER_WORDS) or any(t in IDENTIFIER_TOKENS for t in tokens):
        return True
    if len(tokens) > 1 and tokens[-1] in NUMBER_TOKENS:
        return True
    values = [str(v) for v in column.low_cardinality_values or []]
    return bool(values) and all(_CODE_VALUE.match(v.strip()) for v in values)


def is_free_text(column: ColumnInfo) -> bool:
    """Comments, descriptions, addresses: prose people do not break numbers down by."""
    if any(w in "".join(_tokens(column)) for w in FREE_TEXT_WORDS):
        return True
    return is_prose(column)


def is_prose(column: ColumnInfo) -> bool:
    values = [str(v) for v in column.low_cardinality_values or []]
    return bool(values) and sum(map(len, values)) / len(values) > FREE_TEXT_MEAN_LENGTH


def is_key(table: TableInfo, column: ColumnInfo) -> bool:
    """Declared keys, and names that say key: id, x_id, CustomerId, c_custkey."""
    fk_cols = {c for fk in table.foreign_keys for c in fk.columns}
    name = column.name.lower()
    named = name == "id" or name.endswith(("_id", "key")) or column.name.endswith(("Id", "ID"))
    return column.name in table.primary_key or column.name in fk_cols or named


def label_column(table: TableInfo, referenced: bool) -> ColumnInfo | None:
    """The one text column of a lookup table (a table other tables point at), else None."""
    if not referenced:
        return None
    texts = [
        c
        for c in table.columns
        if c.data_type in ("varchar", "text", "char", "string")
        and not is_key(table, c)
        and not is_identifier(c)
        and not is_prose(c)
        and "address" not in "".join(_tokens(c))
    ]
    return texts[0] if len(texts) == 1 else None


def names_rows(table: TableInfo, column: ColumnInfo) -> bool:
    """A text column with a different value on every row (a person's name): not a category."""
    rows = table.row_count or 0
    return rows > 1 and column.distinct_count == rows and not column.is_numeric


def column_role(table: TableInfo, column: ColumnInfo, label: ColumnInfo | None = None) -> str:
    if is_key(table, column):
        return "key"
    if column.is_date:
        return "date"
    if label is not None and column.name == label.name:
        return "dimension"
    if is_identifier(column):
        return "attribute"
    if (
        column.low_cardinality_values is not None
        and not is_free_text(column)
        and not names_rows(table, column)
    ):
        return "dimension"
    if column.is_numeric:
        return "measure"
    return "attribute"
