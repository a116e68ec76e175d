"""Text cells a spreadsheet would run as a formula (OWASP's CSV injection rule).

A warehouse value such as ``=cmd|' /C calc'!A0`` or ``=HYPERLINK(...)`` becomes live when a
CSV file is opened in Excel or LibreOffice. A text cell that starts with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return (or their full-width forms, which some spreadsheets read the
same way) is written with a leading ``'``; numbers are never touched, so ``-5`` stays a number.
In an .xlsx file the same cells keep their text and carry Excel's own quote prefix (the
stored form of a typed leading ``'``), see `vitrina.present.excel`.

>>> csv_cell("=1+1"), csv_cell("-5"), csv_cell(-5), csv_cell("Москва")
("'=1+1", "'-5", -5, 'Москва')
"""

from __future__ import annotations

from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def is_formula_text(value: Any) -> bool:
    """A text value a spreadsheet would read as a formula (numbers never are)."""
    return isinstance(value, str) and value.startswith(FORMULA_STARTS)


def csv_cell(value: Any) -> Any:
    """The value as a CSV file must hold it: formula-like text behind a ``'``."""
    return "'" + value if is_formula_text(value) else value
